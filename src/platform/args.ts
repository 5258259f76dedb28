export { type ParseArgsConfig, parseArgs } from 'node:util';
