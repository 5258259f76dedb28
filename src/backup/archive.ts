import { createTarDecoder, createTarPacker } from 'modern-tar';
import { sha256Incremental } from '../crypto/digest.ts';
import { files } from '../platform/files.ts';

/**
 * The backup archive: a plain tar whose first member, `manifest.json`, names every other member with its
 * size and SHA-256; then the database snapshot `verity.db` and the keys directory's files under `keys/`.
 */
export class BackupError extends Error {}

export const FORMAT = 'verity-backup';
export const VERSION = 1;
export const MANIFEST = 'manifest.json';
export const DATABASE = 'verity.db';

export interface Manifest {
  format: typeof FORMAT;
  version: typeof VERSION;
  createdAt: string;
  database: typeof DATABASE;
  members: Record<string, { bytes: number; sha256: string }>;
}

const KEY_FILE = /^(?:[A-Za-z0-9_-]+\.jwk\.json|pairwise\.secret|webhook-secrets\.secret)$/;
/** Signing keys and instance secrets; never the temporary files of an interrupted write. */
export const isKeyFile = (name: string) => KEY_FILE.test(name);
/** Only these names are ever written on restore: no paths, no `..`, nothing outside the two targets. */
const isMemberName = (name: string) =>
  name === DATABASE || (name.startsWith('keys/') && isKeyFile(name.slice(5)));

export interface Member {
  name: string;
  bytes: number;
  sha256: string;
  chunks(): AsyncIterable<Uint8Array>;
}

/** Streams the archive into `out`; returns its size and SHA-256. */
export async function writeArchive(
  out: { write(b: Uint8Array): Promise<unknown> },
  members: Member[],
  createdAt: Date,
): Promise<{ bytes: number; sha256: string }> {
  const manifest: Manifest = {
    format: FORMAT,
    version: VERSION,
    createdAt: createdAt.toISOString(),
    database: DATABASE,
    members: Object.fromEntries(members.map((m) => [m.name, { bytes: m.bytes, sha256: m.sha256 }])),
  };
  const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest, null, 2));
  const { readable, controller } = createTarPacker();
  const hash = sha256Incremental();
  let bytes = 0;
  const drained = (async () => {
    for await (const chunk of iterate(readable)) {
      hash.update(chunk);
      bytes += chunk.length;
      await out.write(chunk);
    }
  })();
  try {
    const all: Omit<Member, 'sha256'>[] = [
      {
        name: MANIFEST,
        bytes: manifestBytes.length,
        chunks: async function* () {
          yield manifestBytes;
        },
      },
      ...members,
    ];
    for (const m of all) {
      const w = controller.add({ name: m.name, size: m.bytes, mode: 0o600, mtime: createdAt }).getWriter();
      for await (const chunk of m.chunks()) await w.write(chunk);
      await w.close();
    }
    controller.finalize();
  } catch (e) {
    controller.error(e);
    await drained.catch(() => {});
    throw e;
  }
  await drained;
  return { bytes, sha256: hash.hex() };
}

/**
 * Reads and verifies an archive, handing each member's bytes to `sink` as they stream by. Throws a
 * BackupError unless the manifest comes first, every member is one it names with the size and digest it
 * names, and none is missing. The caller writes into a staging place and uses it only when this returns.
 */
export async function readArchive(
  path: string,
  sink: (name: string) => Promise<{ write(b: Uint8Array): Promise<unknown>; close(): Promise<void> }>,
): Promise<Manifest> {
  if (!(await files.exists(path))) throw new BackupError(`no backup file at ${path}`);
  const chunks = files.readChunks(path);
  const source = new ReadableStream<Uint8Array>({
    async pull(c) {
      const next = await chunks.next();
      if (next.done) c.close();
      else c.enqueue(next.value);
    },
  });
  let manifest: Manifest | undefined;
  const seen = new Set<string>();
  try {
    for await (const entry of iterate(source.pipeThrough(createTarDecoder({ strict: true })))) {
      const name = entry.header.name;
      if (!manifest) {
        if (name !== MANIFEST)
          throw new BackupError(`not a Verity backup: it does not start with ${MANIFEST}`);
        manifest = parseManifest(await new Response(entry.body).text());
        continue;
      }
      const expected = manifest.members[name];
      if (!expected || !isMemberName(name) || seen.has(name) || entry.header.type !== 'file')
        throw new BackupError(`the backup holds a member its manifest does not name: ${name}`);
      seen.add(name);
      const out = await sink(name);
      const hash = sha256Incremental();
      let bytes = 0;
      try {
        for await (const chunk of iterate(entry.body)) {
          hash.update(chunk);
          bytes += chunk.length;
          await out.write(chunk);
        }
      } finally {
        await out.close();
      }
      if (bytes !== expected.bytes || hash.hex() !== expected.sha256)
        throw new BackupError(
          `${name} in the backup does not match its manifest digest: the file is damaged`,
        );
    }
  } catch (e) {
    if (e instanceof BackupError) throw e;
    throw new BackupError(`not a readable Verity backup: ${(e as Error).message}`);
  }
  if (!manifest) throw new BackupError('not a Verity backup: the archive is empty');
  const missing = Object.keys(manifest.members).filter((n) => !seen.has(n));
  if (missing.length) throw new BackupError(`the backup is incomplete: missing ${missing.join(', ')}`);
  return manifest;
}

function parseManifest(text: string): Manifest {
  let m: Partial<Manifest>;
  try {
    m = JSON.parse(text);
  } catch {
    throw new BackupError('not a Verity backup: its manifest is not JSON');
  }
  if (
    m.format !== FORMAT ||
    m.version !== VERSION ||
    m.database !== DATABASE ||
    typeof m.members !== 'object'
  )
    throw new BackupError(`not a Verity backup of format ${FORMAT} version ${VERSION}`);
  const members = m.members as Manifest['members'];
  if (!members[DATABASE]) throw new BackupError('the backup holds no database');
  for (const [name, v] of Object.entries(members))
    if (!isMemberName(name) || typeof v?.bytes !== 'number' || !/^[0-9a-f]{64}$/.test(String(v?.sha256)))
      throw new BackupError(`the backup's manifest names an unexpected member: ${name}`);
  return m as Manifest;
}

async function* iterate<T>(stream: ReadableStream<T>): AsyncGenerator<T> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Backups and restores here are SQLite's; a PostgreSQL database has its own tools. */
export const PG_BACKUP =
  'verity backup and restore cover SQLite; back up a PostgreSQL database with pg_dump and the keys directory with it (docs/operations.md#backups-with-pg_dump)';
