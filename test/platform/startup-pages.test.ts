import { describe, expect, test } from 'bun:test';
import { releaseStartupPages } from '../../src/platform/startup-pages.ts';

type Ffi = Parameters<typeof releaseStartupPages>[0];

// The real release is checked from outside dist/verity (test/build/artifacts.test.ts); here, what an
// operator is told where it cannot be done.
describe('start-up pages', () => {
  test('without libc the pages stay, and the answer says why', async () => {
    const ffi = {
      dlopen: () => {
        throw new Error('libc.so.6: cannot open shared object file');
      },
      FFIType: {},
    } as unknown as Ffi;
    expect(await releaseStartupPages(ffi, 0)).toEqual({
      released: false,
      why: 'libc.so.6 cannot be loaded: libc.so.6: cannot open shared object file',
    });
  });

  test('a kernel that refuses MADV_PAGEOUT (before Linux 5.4) leaves the pages, and says so', async () => {
    const asked: number[] = [];
    let closed = false;
    const ffi = {
      dlopen: () => ({
        symbols: {
          madvise: (_start: bigint, _length: bigint, advice: number) => {
            asked.push(advice);
            return -1;
          },
        },
        close: () => {
          closed = true;
        },
      }),
      FFIType: {},
    } as unknown as Ffi;
    const r = await releaseStartupPages(ffi, 0);
    expect(r).toEqual({ released: false, why: expect.stringContaining('Linux 5.4') });
    expect(asked).toEqual([21]); // MADV_PAGEOUT, and nothing more once it was refused
    expect(closed).toBe(true);
  });
});
