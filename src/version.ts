import pkg from '../package.json' with { type: 'json' };

/** Verity's version, from package.json (a module import, so the binary and bundles carry it). */
export const VERSION: string = pkg.version;
