export * from './command-line.ts';
export * from './child-process.ts';
export * from './channel.ts';
export * from './jsonrpc-adapter.ts';
