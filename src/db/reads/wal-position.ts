// WAL positions (LSNs): a byte offset into the primary's write-ahead log,
// which Postgres prints as two hexadecimal halves ("16/B374D848"). Kept as
// bigint: positions pass 2^53 long before a server retires.
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`not a WAL position: "${text}"`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
