// A name server on loopback for tests: answers A and AAAA questions from a table (NXDOMAIN for
// other names), or never answers when `silent`; counts the questions it got.
import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';

export interface DnsServer {
  /** `127.0.0.1:port`, for Resolver.setServers. */
  address: string;
  questions: string[];
  close(): Promise<void>;
}

const A = 1;
const AAAA = 28;

function rdata(type: number, address: string): Buffer {
  if (type === A) return Buffer.from(address.split('.').map(Number));
  const full = address.includes('::') ? expand(address) : address.split(':');
  return Buffer.concat(full.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

function expand(address: string): string[] {
  const [head = '', tail = ''] = address.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  return [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
}

export async function startDnsServer(names: Record<string, string[]>, options: { silent?: boolean } = {}): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (query, peer) => {
    let at = 12;
    const labels: string[] = [];
    while (query[at] !== 0) {
      const length = query[at] as number;
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
      at += length + 1;
    }
    const type = query.readUInt16BE(at + 1);
    const question = query.subarray(12, at + 5);
    const name = labels.join('.').toLowerCase();
    questions.push(`${name} ${type === A ? 'A' : type === AAAA ? 'AAAA' : type}`);
    if (options.silent) return;
    const known = names[name];
    const addresses = (known ?? []).filter((a) => (type === A ? isIPv4(a) : type === AAAA ? !isIPv4(a) : false));
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known === undefined ? 0x8183 : 0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const data = rdata(type, address);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0);
      fixed.writeUInt16BE(type, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((done) => socket.bind(0, '127.0.0.1', done));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise((done) => socket.close(() => done())),
  };
}
