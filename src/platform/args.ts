export { parseArgs } from 'node:util';
