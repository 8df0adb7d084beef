#!/usr/bin/env node
// The `svc-webhooks` executable: runs the CLI on the process's arguments and streams.
import { runCli } from './program';

runCli(process.argv.slice(2)).then((code) => {
  // exitCode rather than exit(): pending writes to a piped stdout are flushed first.
  process.exitCode = code;
});
