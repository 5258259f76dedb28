import {
  chmod,
  type FileHandle,
  link,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** File access for the few things kept on disk (signing keys, instance secrets, backups). */
export const files = {
  join,
  dirname,
  resolve,
  /** Whether `path` lies inside the directory `dir` (both resolved). */
  isInside: (path: string, dir: string): boolean => {
    const r = relative(resolve(dir), resolve(path));
    return r !== '' && r.split(sep)[0] !== '..' && !isAbsolute(r);
  },
  async ensurePrivateDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  },
  /** A fresh 0700 directory beside `near` (same file system, so its files can be renamed into place). */
  async makePrivateTempDir(near: string, prefix: string): Promise<string> {
    await mkdir(near, { recursive: true });
    const dir = await mkdtemp(join(near, prefix));
    await chmod(dir, 0o700);
    return dir;
  },
  /** A new file (never an existing one) that is 0600 from its first byte. */
  createPrivate(path: string): Promise<FileHandle> {
    return open(path, 'wx', 0o600);
  },
  /** A file's bytes in chunks, without holding it all in memory. */
  async *readChunks(path: string): AsyncGenerator<Uint8Array> {
    const fh = await open(path, 'r');
    try {
      for (;;) {
        const buf = new Uint8Array(1 << 20);
        const { bytesRead } = await fh.read(buf, 0, buf.length, null);
        if (!bytesRead) return;
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
  },
  rename,
  async removeTree(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true });
  },
  async readBytes(path: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(path));
  },
  async ensureDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
  },
  /** Written to a temporary name and renamed, so a crash never leaves a half-written file. */
  async writePrivateAtomic(path: string, contents: string | Uint8Array): Promise<void> {
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await writeFile(tmp, contents, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  },
  /**
   * Like writePrivateAtomic, but never replaces an existing file: a hard link fails when the name is
   * taken, so of two concurrent writers exactly one wins. Returns whether this call wrote it.
   */
  async writePrivateOnce(path: string, contents: string | Uint8Array): Promise<boolean> {
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await writeFile(tmp, contents, { mode: 0o600, flag: 'wx' });
    try {
      await link(tmp, path);
      return true;
    } catch (e) {
      if ((e as { code?: string }).code === 'EEXIST') return false;
      throw e;
    } finally {
      await rm(tmp, { force: true });
    }
  },
  /** Creates the file if missing; either way leaves it readable by its owner only. */
  async ensurePrivateFile(path: string): Promise<void> {
    await writeFile(path, '', { flag: 'a', mode: 0o600 });
    await chmod(path, 0o600);
  },
  async readText(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return undefined;
      throw e;
    }
  },
  async list(dir: string): Promise<string[]> {
    try {
      return await readdir(dir);
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return [];
      throw e;
    }
  },
  /** Owner-only permissions, then an atomic move over `to` (same directory, so the same file system). */
  async publishPrivate(from: string, to: string): Promise<void> {
    await chmod(from, 0o600);
    await rename(from, to);
  },
  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  },
  /** Modification time (epoch ms) of a regular file; undefined when it is missing or not a regular file. */
  async modifiedAt(path: string): Promise<number | undefined> {
    try {
      const s = await lstat(path);
      return s.isFile() ? s.mtimeMs : undefined;
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return undefined;
      throw e;
    }
  },
  async mode(path: string): Promise<number> {
    return (await stat(path)).mode & 0o777;
  },
  async size(path: string): Promise<number> {
    return (await stat(path)).size;
  },
  async exists(path: string): Promise<boolean> {
    try {
      await stat(path);
      return true;
    } catch {
      return false;
    }
  },
};
