import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { buildConnector, Dispatcher } from 'undici';
import { undici } from '../util/lazy-undici.js';
import { DownloadRefusedError } from '../errors.js';
import { ALLOW_HOSTS_ENV } from './download-settings.js';


/** An output link at an address reelpipe will not fetch from: nothing was requested. */
export class BlockedAddressError extends DownloadRefusedError {
  constructor(host: string, address: string) {
    super(
      `refused to fetch from ${host === address ? address : `${host}: it is at ${address}`}, a private address (loopback, private network, link-local, ` +
        `shared or unique-local range, multicast or unspecified). Outputs are fetched only from public addresses, the ` +
        `service's own host, and hosts listed in ${ALLOW_HOSTS_ENV} (comma-separated host or host:port).`,
    );
  }
}

/**
 * Addresses no output link may point at, unless its host is allowed. Why: an output URL is the
 * service's text; a hostile or compromised service (or a redirect) must not make reelpipe fetch
 * from this machine or its network and save the answer as an output (the classic SSRF). Every
 * IPv4-mapped or -translated IPv6 form counts too, so `::ffff:127.0.0.1` is no way round.
 */
const PRIVATE_V4 = new BlockList();
// Apart: a BlockList checks IPv4 addresses against its IPv6 rules as IPv4-mapped ones.
const PRIVATE_V6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) PRIVATE_V4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // IPv4/IPv6 translation
  ['64:ff9b:1::', 48], // local-use translation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) PRIVATE_V6.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? PRIVATE_V4.check(address, 'ipv4') : PRIVATE_V6.check(address, 'ipv6');
}

/** Where outputs may be fetched from besides public addresses. */
export interface AddressPolicy {
  /** The service's base address: its host (and port) is always allowed; the sandbox lives on loopback. */
  serviceUrl?: string;
  /** Further hosts allowed whatever their address: `host` (any port) or `host:port`. */
  allowHosts?: readonly string[];
}

type HostMatcher = (host: string, port: number) => boolean;

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** `localhost` or a loopback address (IPv4-mapped ones included). */
function isLoopback(host: string): boolean {
  const name = bare(host);
  if (name === 'localhost') return true;
  const family = isIP(name);
  if (family === 4) return name.startsWith('127.');
  return family === 6 && (name === '::1' || /^::ffff:(127\.|7f)/.test(name));
}

/** `host` or `host:port` → a matcher; `[::1]:8080` for IPv6 with a port. */
function hostMatchers(policy: AddressPolicy): HostMatcher[] {
  const matchers = [...(policy.allowHosts ?? [])].map((entry): HostMatcher => {
    const url = new URL(`http://${entry.trim()}`);
    const allowedPort = url.port === '' ? undefined : Number(url.port);
    return (host, port) => bare(url.hostname) === bare(host) && (allowedPort === undefined || allowedPort === port);
  });
  if (policy.serviceUrl) {
    const url = new URL(policy.serviceUrl);
    const servicePort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    // Why loopback names are one host here: a service at localhost:N (a local sandbox) whose
    // links say 127.0.0.1:N is the same server, on the same port of this machine.
    const local = isLoopback(url.hostname);
    matchers.push((host, port) => port === servicePort && (bare(url.hostname) === bare(host) || (local && isLoopback(host))));
  }
  return matchers;
}

/**
 * Resolves like `dns.lookup` and refuses a name that resolves to any private address. Why at
 * connect time, in the socket's own lookup: the connection goes to exactly the address checked,
 * so a name that resolves to a public address for a first check and a private one for the
 * connection (DNS rebinding) gets nowhere.
 */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '');
    const blocked = addresses.find((a) => isPrivateAddress(a.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), '');
    if (options.all) return (callback as (e: null, all: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

const agents = new Map<string, Dispatcher>();

/**
 * The dispatcher downloads go through: every connection, redirects included (each hop connects
 * through the same connector), is checked against `policy`. One per policy, shared.
 */
export function guardedDispatcher(policy: AddressPolicy): Dispatcher {
  const key = JSON.stringify([policy.serviceUrl ?? null, policy.allowHosts ?? []]);
  let agent = agents.get(key);
  if (!agent) {
    const allowed = hostMatchers(policy);
    const { Agent, buildConnector: connector, interceptors } = undici();
    const direct = connector({ timeout: 10_000 });
    const checked = connector({ timeout: 10_000, lookup: checkedLookup });
    const connect: buildConnector.connector = (options, callback) => {
      const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80));
      if (allowed.some((match) => match(options.hostname, port))) return direct(options, callback);
      if (isIP(options.hostname) === 0) return checked(options, callback);
      if (isPrivateAddress(options.hostname)) return callback(new BlockedAddressError(options.hostname, options.hostname), null);
      return direct(options, callback);
    };
    agent = new Agent({ connections: 32, connect }).compose(interceptors.redirect({ maxRedirections: 5 }));
    agents.set(key, agent);
  }
  return agent;
}
