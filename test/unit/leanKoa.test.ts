/**
 * LeanKoa (src/http/leanKoa.ts) answers exactly as Koa does: an answer the middleware wrote itself
 * (`ctx.respond = false`) is left alone, and every other answer goes through Koa's own respond with
 * the status the middleware set (not the 404 that Koa's handleRequest presets), its body, HEAD and
 * bodiless statuses handled by Koa. Each case is asked of LeanKoa and of plain Koa on loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { LeanKoa } from '../../src/http/leanKoa';

type Answer = { status: number; headers: Record<string, string>; body: string };

function build(app: Koa): Koa {
  app.silent = true;
  app.use(async (ctx) => {
    switch (ctx.path) {
      case '/direct':
        ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
        ctx.res.setHeader('Content-Length', '11');
        ctx.respond = false;
        ctx.res.end('{"ok":true}');
        return;
      case '/created':
        ctx.status = 201;
        ctx.body = 'made';
        return;
      case '/object':
        ctx.status = 202;
        ctx.body = { a: 1 };
        return;
      case '/empty':
        ctx.status = 204;
        return;
      case '/not-modified':
        ctx.status = 304;
        ctx.body = 'dropped';
        return;
      case '/stream':
        ctx.body = Readable.from(['a', 'b', 'c']);
        return;
      case '/boom':
        throw Object.assign(new Error('no'), { status: 418, expose: true });
      default:
        // Nothing set: Koa's 404.
        return;
    }
  });
  return app;
}

async function ask(app: Koa, method: string, path: string): Promise<Answer> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (name !== 'date' && name !== 'connection' && name !== 'keep-alive') headers[name] = value;
    });
    return { status: res.status, headers, body: await res.text() };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('LeanKoa answers as Koa does', () => {
  const cases: [string, string][] = [
    ['GET', '/direct'],
    ['GET', '/created'],
    ['HEAD', '/created'],
    ['GET', '/object'],
    ['GET', '/empty'],
    ['GET', '/not-modified'],
    ['GET', '/stream'],
    ['GET', '/boom'],
    ['GET', '/nothing'],
    ['HEAD', '/nothing'],
  ];
  it.each(cases)('%s %s', async (method, path) => {
    const lean = await ask(build(new LeanKoa()), method, path);
    const koa = await ask(build(new Koa()), method, path);
    expect(lean).toEqual(koa);
  });

  it('keeps the status the middleware set when Koa responds', async () => {
    expect((await ask(build(new LeanKoa()), 'GET', '/created')).status).toBe(201);
    expect((await ask(build(new LeanKoa()), 'GET', '/nothing')).status).toBe(404);
    expect((await ask(build(new LeanKoa()), 'GET', '/boom')).status).toBe(418);
  });
});
