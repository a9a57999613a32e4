import { BlockList, isIP } from 'node:net';
import { badRequest } from '../../core/errors.js';

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is the IPv4 address it carries. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** Validates CIDR blocks (a bare address is a block of one), as stored on roles, users and tokens. */
export function parseCidrs(blocks: readonly string[], field: string): string[] {
  for (const block of blocks) {
    const [address = '', bits, extra] = block.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !validBits || extra !== undefined) throw badRequest(`invalid CIDR block "${block}" in ${field}`);
  }
  return [...blocks];
}

/** Whether the client address falls in one of the blocks. */
export function addressInCidrs(address: string | undefined, blocks: readonly string[]): boolean {
  if (!address) return false;
  const client = plainAddress(address);
  const clientFamily = isIP(client) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  for (const block of blocks) {
    const [network = '', bits] = block.split('/');
    const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(network, bits === undefined ? (family === 'ipv6' ? 128 : 32) : Number(bits), family);
  }
  return list.check(client, clientFamily);
}

/** Whether every block of `inner` lies inside one of `outer` (a secret ID's CIDRs within its role's). */
export function cidrsWithin(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  return inner.every((block) => {
    const [network = '', bits] = block.split('/');
    const width = bits === undefined ? (isIP(network) === 6 ? 128 : 32) : Number(bits);
    return outer.some((candidate) => {
      const outerBits = Number(candidate.split('/')[1] ?? (isIP(candidate) === 6 ? 128 : 32));
      return outerBits <= width && addressInCidrs(network, [candidate]);
    });
  });
}
