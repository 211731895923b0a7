#!/usr/bin/env node
// The kit ships TypeScript sources; tsx's loader lets Node run them directly (tsx/esm/api, tsx >= 4).
import { register } from 'tsx/esm/api';

register();
await import('../harness/cli.ts');
