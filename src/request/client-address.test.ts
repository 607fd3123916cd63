import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalAddress,
  clientAddress,
  MAX_HOPS,
  trustedEntryProblem,
  trustedProxies,
  TRUST_PROXY_ALIAS,
} from './client-address.js';

const behindNginx = trustedProxies(['loopback', 'private']);

describe('clientAddress', () => {
  it.each([
    // [peer, X-Forwarded-For, trusted, client, why]
    ['203.0.113.7', '198.51.100.1', null, '203.0.113.7', 'nothing trusted: the header is a claim'],
    ['203.0.113.7', '198.51.100.1', behindNginx, '203.0.113.7', 'an untrusted peer cannot speak for others'],
    ['10.0.0.2', undefined, behindNginx, '10.0.0.2', 'a trusted peer without the header is the client'],
    ['10.0.0.2', '198.51.100.1', behindNginx, '198.51.100.1', 'one proxy'],
    ['10.0.0.2', '192.0.2.66, 198.51.100.1', behindNginx, '198.51.100.1', 'the left-most entry is the sender’s claim'],
    ['127.0.0.1', '198.51.100.1, 10.1.1.1, 172.20.0.3', behindNginx, '198.51.100.1', 'through two trusted hops'],
    ['10.0.0.2', '10.9.9.9, 192.168.1.1', behindNginx, '10.9.9.9', 'every hop trusted: the furthest'],
    ['10.0.0.2', '198.51.100.1, not-an-ip, 10.1.1.1', behindNginx, '10.1.1.1', 'a garbled hop stops the walk'],
    ['10.0.0.2', '198.51.100.1,', behindNginx, '10.0.0.2', 'an empty hop stops it too'],
    ['10.0.0.2', '198.51.100.1:51234', behindNginx, '198.51.100.1', 'an IPv4 hop with a port'],
    ['::1', '2001:DB8:0:0::1', behindNginx, '2001:db8::1', 'IPv6, in one spelling'],
    ['::1', '[2001:db8::1]:443', behindNginx, '2001:db8::1', 'IPv6 in brackets with a port'],
    ['fd00::5', '2001:db8::1, fd00::9', behindNginx, '2001:db8::1', 'IPv6 unique local proxies'],
    ['::ffff:127.0.0.1', '203.0.113.5', behindNginx, '203.0.113.5', 'an IPv4 peer on a dual-stack socket'],
    ['::ffff:127.0.0.1', '::ffff:cb00:7105', behindNginx, '203.0.113.5', 'an IPv4-mapped hop'],
    ['::ffff:10.0.0.2', '::ffff:203.0.113.5', null, '10.0.0.2', 'IPv4-mapped peer, one key with its IPv4 form'],
    ['fe80::1%eth0', undefined, null, 'fe80::1', 'a zone is not part of the address'],
    [undefined, '198.51.100.1', behindNginx, 'unknown', 'no peer (a closed socket)'],
  ] as const)('%s + %s → %s', (peer, forwarded, trusted, client, _why) => {
    expect(clientAddress(peer, forwarded, trusted)).toBe(client);
  });

  it('reads several X-Forwarded-For fields as one list', () => {
    expect(clientAddress('10.0.0.2', ['192.0.2.66', '198.51.100.1, 10.0.0.3'], behindNginx)).toBe('198.51.100.1');
  });

  it(`reads at most ${MAX_HOPS} hops from the right of a long header`, () => {
    const chain = ['198.51.100.1', ...Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`)];
    expect(clientAddress('10.0.0.2', chain.join(', '), behindNginx)).toBe(chain[chain.length - MAX_HOPS]);
  });

  it('picks the sender behind trusted proxies whatever the sender wrote before them', () => {
    const publicV4 = fc.ipV4().filter((ip) => !behindNginx.trusts(ip));
    const privateV4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), { maxLength: 8 }),
        publicV4,
        fc.array(privateV4, { maxLength: MAX_HOPS - 1 }),
        (claimed, sender, proxies) => {
          const header = [...claimed, sender, ...proxies].join(', ');
          expect(clientAddress('127.0.0.1', header, behindNginx)).toBe(sender);
        },
      ),
    );
  });
});

describe('canonicalAddress', () => {
  it('gives every spelling of one address the same text, and null for what is not an address', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        expect(canonicalAddress(ip.toUpperCase())).toBe(canonicalAddress(ip));
        expect(canonicalAddress(`[${ip}]:8080`)).toBe(canonicalAddress(ip));
      }),
    );
    for (const text of ['', 'unknown', '1.2.3', '999.1.1.1', '[::1', 'example.org'])
      expect(canonicalAddress(text)).toBeNull();
  });
});

describe('TRUSTED_PROXIES entries', () => {
  it.each([
    ['loopback', null],
    ['10.0.0.0/8', null],
    ['2001:db8::/32', null],
    ['198.51.100.7', null],
    ['10.0.0.0/33', 'the prefix length must be 0 to 32'],
    ['::/129', 'the prefix length must be 0 to 128'],
    ['10.0.0.0/8/8', 'not an IP address'],
    ['nginx', 'not an IP address, a CIDR range or one of loopback, private, linklocal'],
  ])('%s', (entry, problem) => {
    if (problem === null) expect(trustedEntryProblem(entry)).toBeNull();
    else expect(trustedEntryProblem(entry)).toContain(problem);
  });

  it('matches addresses against ranges as net.BlockList does', () => {
    const family = (version: 4 | 6) => {
      const address = version === 4 ? fc.ipV4() : fc.ipV6();
      return fc.record({
        version: fc.constant(version),
        ranges: fc.array(fc.tuple(address, fc.nat(version === 4 ? 32 : 128)), { minLength: 1, maxLength: 4 }),
        probe: address, // anywhere; each range's own base is probed too (always inside it)
      });
    };
    fc.assert(
      fc.property(fc.oneof(family(4), family(6)), ({ version, ranges, probe }) => {
        const reference = new BlockList();
        for (const [base, bits] of ranges) reference.addSubnet(base, bits, version === 4 ? 'ipv4' : 'ipv6');
        const ours = trustedProxies(ranges.map(([base, bits]) => `${base}/${bits}`));
        for (const address of [probe, ...ranges.map(([base]) => base)])
          expect(ours.trusts(address), address).toBe(reference.check(address, version === 4 ? 'ipv4' : 'ipv6'));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['::ffff:0:0/96', '10.1.2.3', true],
    ['::ffff:10.0.0.0/104', '10.1.2.3', true],
    ['::ffff:10.0.0.0/104', '11.1.2.3', false],
    ['::/0', '8.8.8.8', true],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['0.0.0.0/0', '2001:db8::1', false],
    ['10.0.0.0/8', '::ffff:10.9.8.7', true],
    ['10.0.0.0/8', '::ffff:a09:807', true],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
  ])('%s holds %s: %s', (range, address, holds) => {
    expect(trustedProxies([range]).trusts(address)).toBe(holds);
  });

  it('TRUST_PROXY=true trusts this host and private networks, not the Internet', () => {
    const alias = trustedProxies(TRUST_PROXY_ALIAS);
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.18.0.4', '192.168.0.9', 'fd12::1', '::ffff:172.18.0.4'])
      expect(alias.trusts(ip)).toBe(true);
    for (const ip of ['8.8.8.8', '172.32.0.1', '2001:db8::1', '169.254.1.1']) expect(alias.trusts(ip)).toBe(false);
  });
});
