import type { Pointer } from 'bun:ffi';
import type { NativeRs256, RsaPrivateKey } from './rs256.ts';

/**
 * RS256 through the system's OpenSSL 3 (`libcrypto.so.3`) over bun:ffi: Bun's own RSA signing runs at
 * about half of OpenSSL's speed on the same core, and the token endpoint's throughput is bounded by that
 * one signature (docs/architecture.md#signing). A key (node:crypto's, as imported) is parsed once, at its
 * first signature, with a signing context set up once; a signature is then a SHA-256 digest and one
 * EVP_PKEY_sign. RSASSA-PKCS1-v1_5 is deterministic, so these signatures are byte for byte
 * node:crypto's (the tests compare them).
 */

const RSA_PKCS1_PADDING = 1;

/**
 * The signer, or undefined when the library cannot be loaded (the caller keeps node:crypto). bun:ffi is
 * handed in, not imported here: the Node and Deno builds carry this file but must never load it.
 */
export function loadLibcrypto(
  ffi: typeof import('bun:ffi'),
  path = 'libcrypto.so.3',
): NativeRs256 | undefined {
  const { dlopen, FFIType, ptr } = ffi;
  const SYMBOLS = {
    d2i_AutoPrivateKey: { args: [FFIType.ptr, FFIType.ptr, FFIType.i64], returns: FFIType.ptr },
    EVP_PKEY_free: { args: [FFIType.ptr], returns: FFIType.void },
    EVP_PKEY_get_size: { args: [FFIType.ptr], returns: FFIType.i32 },
    EVP_sha256: { args: [], returns: FFIType.ptr },
    EVP_PKEY_CTX_new: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
    EVP_PKEY_CTX_free: { args: [FFIType.ptr], returns: FFIType.void },
    EVP_PKEY_sign_init: { args: [FFIType.ptr], returns: FFIType.i32 },
    EVP_PKEY_CTX_set_rsa_padding: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    EVP_PKEY_CTX_set_signature_md: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    EVP_PKEY_sign: {
      args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.u64],
      returns: FFIType.i32,
    },
  } as const;
  let lib: ReturnType<typeof dlopen<typeof SYMBOLS>>;
  try {
    lib = dlopen(path, SYMBOLS);
  } catch {
    return undefined;
  }
  const c = lib.symbols;
  const sha256 = c.EVP_sha256();
  if (!sha256) return undefined;
  const contexts = new WeakMap<RsaPrivateKey, { pctx: Pointer; size: number }>();
  const freed = new FinalizationRegistry<{ pctx: Pointer; pkey: Pointer }>(({ pctx, pkey }) => {
    c.EVP_PKEY_CTX_free(pctx);
    c.EVP_PKEY_free(pkey);
  });
  const sigLen = new BigUint64Array(1);

  /** The key parsed into an EVP_PKEY with its signing context, once per key. */
  function contextOf(key: RsaPrivateKey): { pctx: Pointer; size: number } {
    const held = contexts.get(key);
    if (held) return held;
    if (key.asymmetricKeyType !== 'rsa') throw new Error('RS256 signs with an RSA key only');
    const der = new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }));
    // d2i_* take a pointer to the pointer to the bytes, and advance it.
    const cursor = new BigUint64Array([BigInt(ptr(der))]);
    const pkey = c.d2i_AutoPrivateKey(null, ptr(cursor), der.byteLength) as Pointer | null;
    if (!pkey) throw new Error('libcrypto could not parse the RSA private key');
    const pctx = c.EVP_PKEY_CTX_new(pkey, null) as Pointer | null;
    if (
      !pctx ||
      c.EVP_PKEY_sign_init(pctx) !== 1 ||
      c.EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) !== 1 ||
      c.EVP_PKEY_CTX_set_signature_md(pctx, sha256) !== 1
    ) {
      if (pctx) c.EVP_PKEY_CTX_free(pctx);
      c.EVP_PKEY_free(pkey);
      throw new Error('libcrypto could not set up RS256 signing');
    }
    const native = { pctx, size: c.EVP_PKEY_get_size(pkey) };
    contexts.set(key, native);
    freed.register(key, { pctx, pkey });
    return native;
  }

  return {
    signRs256(key, input) {
      const native = contextOf(key);
      const digest = Bun.SHA256.hash(input) as Uint8Array;
      const sig = new Uint8Array(native.size);
      sigLen[0] = BigInt(sig.byteLength);
      if (c.EVP_PKEY_sign(native.pctx, ptr(sig), ptr(sigLen), ptr(digest), digest.byteLength) !== 1)
        throw new Error('libcrypto RS256 signing failed');
      return Buffer.from(sig.buffer, 0, Number(sigLen[0])).toString('base64url');
    },
  };
}
