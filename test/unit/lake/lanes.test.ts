/** The lanes of an import (domain/lake/lanes.ts): whole identity components per lane, file order kept. */
import { splitIntoLanes } from '../../../src/domain/lake/lanes';

const ids = (...keys: string[]) => keys;

describe('splitIntoLanes', () => {
  it('records with no identifier in common spread over the lanes, each lane in file order', () => {
    const items = ['a', 'b', 'c', 'd', 'e', 'f'];
    const lanes = splitIntoLanes(items, items.map((x) => [`id:${x}`]), [], 3);
    expect(lanes).toHaveLength(3);
    expect(lanes.flat().sort()).toEqual(items);
    for (const lane of lanes) expect(lane).toEqual([...lane].sort());
  });

  it('records that share any identifier share a lane, in file order, whichever identifier it is', () => {
    const items = [0, 1, 2, 3, 4, 5, 6];
    const keys = [
      ids('id:p', 'username:p'),
      ids('id:q', 'username:q', 'network_id:7'),
      ids('id:r', 'username:r'),
      ids('id:p', 'username:p2'), // the same person again, new username
      ids('id:s', 'username:p2'), // takes over that username
      ids('id:t', 'username:t', 'network_id:7'), // shares a network ID with q
      ids('id:u', 'username:u'),
    ];
    const lanes = splitIntoLanes(items, keys, [], 4);
    const laneOf = (i: number) => lanes.findIndex((l) => l.includes(i));
    expect(laneOf(0)).toBe(laneOf(3));
    expect(laneOf(3)).toBe(laneOf(4));
    expect(laneOf(1)).toBe(laneOf(5));
    expect(lanes[laneOf(0)].filter((i) => [0, 3, 4].includes(i))).toEqual([0, 3, 4]);
    expect(lanes.flat().sort()).toEqual(items);
  });

  it('a stored row that carries identifiers of two records puts them in one lane', () => {
    const items = ['x', 'y', 'z'];
    const keys = [ids('id:x', 'username:vx'), ids('id:y', 'username:u'), ids('id:z', 'username:z')];
    const apart = splitIntoLanes(items, keys, [], 3);
    expect(apart).toHaveLength(3);
    // The lake holds id x under username u: y taking over u replaces x's row.
    const linked = splitIntoLanes(items, keys, [ids('id:x', 'username:u'), ids('id:other', 'username:none')], 3);
    expect(linked).toHaveLength(2);
    expect(linked.find((l) => l.includes('x'))).toEqual(['x', 'y']);
  });

  it('one lane, or one component, keeps the batch whole and in order', () => {
    const items = [1, 2, 3, 4];
    expect(splitIntoLanes(items, items.map((i) => [`id:${i}`]), [], 1)).toEqual([items]);
    expect(splitIntoLanes(items, items.map(() => ['id:same']), [], 4)).toEqual([items]);
  });
});
