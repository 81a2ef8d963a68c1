import { addressRefusal, assertWebhookUrlAllowed, type ResolveHost } from '../../../src/domain/webhooks/ssrf';

const off = { allowLoopback: false };
const dns: Record<string, string[]> = {
  'ok.example.test': ['93.184.215.14', '2606:4700::6810:84e5'],
  'rebind.example.test': ['93.184.215.14', '127.0.0.1'],
  'localhost6.example.test': ['::1'],
};
const resolve: ResolveHost = async (host) => {
  const answer = dns[host];
  if (!answer) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return answer;
};
const refusal = async (url: string, policy = off) => {
  try {
    await assertWebhookUrlAllowed(url, policy, resolve);
    return undefined;
  } catch (err) {
    return (err as { code: string; message: string }).code + ': ' + (err as Error).message;
  }
};

describe('SSRF rules of webhook destinations', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.10', 'reserved'],
    ['203.0.113.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses %s (%s)', (address, why) => {
    expect(addressRefusal(address, off)).toContain(why);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::6810:84e5', '2a00:1450:4001::1'])('allows the public address %s', (address) => {
    expect(addressRefusal(address, off)).toBeUndefined();
  });

  it('the development setting allows loopback and nothing else', () => {
    const dev = { allowLoopback: true };
    expect(addressRefusal('127.0.0.1', dev)).toBeUndefined();
    expect(addressRefusal('::1', dev)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', dev)).toContain('private');
    expect(addressRefusal('169.254.169.254', dev)).toContain('link-local');
  });

  it.each([
    ['https://0x7f000001/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'],
    ['https://127.1/hook', 'loopback'],
    ['https://0/hook', 'unspecified'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'link-local'],
    ['https://[::ffff:7f00:1]/hook', 'loopback'],
    ['https://[::1]:8443/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://rebind.example.test/hook', 'resolves to a private or internal address'],
    ['https://localhost6.example.test/hook', 'loopback'],
    ['https://nowhere.example.test/hook', 'does not resolve'],
    ['http://ok.example.test/hook', 'must use https'],
    ['https://user:pw@ok.example.test/hook', 'user name or password'],
    ['https://user@ok.example.test/hook', 'user name or password'],
    ['not a url', 'not a valid URL'],
  ])('refuses the URL %s: %s', async (url, why) => {
    const answer = await refusal(url);
    expect(answer).toMatch(/^VALIDATION_ERROR: webhook_url: /);
    expect(answer).toContain(why);
  });

  it('allows a public literal and a host whose every answer is public', async () => {
    expect(await refusal('https://93.184.215.14/hook')).toBeUndefined();
    expect(await refusal('https://[2606:4700::6810:84e5]/hook')).toBeUndefined();
    expect(await refusal('https://ok.example.test:8443/hook?x=1')).toBeUndefined();
  });
});
