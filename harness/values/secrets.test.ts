/** Which values count as secrets for the kit's outputs (harness/values/secrets.ts). */
import { describe, it, expect } from 'vitest';
import { environmentSecrets, rememberMadeUpSecret, SCRUBBED, scrubSecrets, scrubSecretsDeep, knownSecrets } from './secrets.ts';

describe('environment secrets', () => {
  it('takes values by the variable name or the value shape, not paths or short values', () => {
    const env = {
      OPENAI_API_KEY: 'abcdefgh12345678',
      GITHUB_TOKEN: 'tok-0123456789',
      DB_PASSWORD: 'hunter2hunter2',
      SOMETHING: 'sk-abcdefghijklmnopqrstuv',
      PWD: '/home/someone/project',
      HOME: '/home/someone',
      KEY_FILE: '/etc/keys/one.pem',
      SHORT_TOKEN: 'abc',
      LANG: 'en_US.UTF-8',
    };
    expect(environmentSecrets(env).sort()).toEqual(['abcdefgh12345678', 'hunter2hunter2', 'sk-abcdefghijklmnopqrstuv', 'tok-0123456789'].sort());
  });
});

describe('scrubbing', () => {
  it('replaces a made-up credential in text, keys and nested values; leaves other values', () => {
    rememberMadeUpSecret('made-up-0123456789');
    const secrets = knownSecrets({});
    expect(scrubSecrets('key=made-up-0123456789;', secrets)).toBe(`key=${SCRUBBED};`);
    expect(scrubSecretsDeep({ 'made-up-0123456789': [1, 'x made-up-0123456789 y', null, true] }, secrets)).toEqual({ [SCRUBBED]: [1, `x ${SCRUBBED} y`, null, true] });
  });

  it('a secret containing another is replaced whole', () => {
    expect(scrubSecrets('aaaa-bbbb-cccc', ['aaaa-bbbb', 'aaaa-bbbb-cccc'].sort((a, b) => b.length - a.length))).toBe(SCRUBBED);
  });
});
