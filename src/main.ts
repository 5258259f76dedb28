#!/usr/bin/env bun
import { runCli } from './cli/index.ts';
import { proc } from './platform/process.ts';

const code = await runCli(process.argv.slice(2));
proc.exit(code);
