import type { Config } from '../../config/schema.ts';
import { httpFaceProvider } from './http.ts';
import type { FaceProvider } from './provider.ts';

/**
 * The provider for production flows per `[face] provider`; undefined when none is usable (`none`, or
 * `local`, whose on-box models are not part of this build, or `http` without a URL).
 */
export function configuredFaceProvider(config: Config): FaceProvider | undefined {
  const f = config.face;
  if (f.provider === 'http' && f.http_url)
    return httpFaceProvider({ url: f.http_url, token: f.http_token, timeout: f.timeout });
  return undefined;
}
