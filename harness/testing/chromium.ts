/**
 * Opens HTML files in headless Chromium and reports what happened, for the kit's tests: console
 * messages, uncaught exceptions, browser log entries (a blocked resource, a Content-Security-Policy
 * violation), every network request other than the page itself, and a few facts read from the DOM the
 * browser built. Talks to Chromium over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * JSON messages separated by NUL on file descriptors 3 and 4), so no WebSocket client or other package
 * is needed. Host names resolve to nothing (`--host-resolver-rules`), so even a missed request could
 * not leave the machine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';

/** The Debian package that provides the browser, named when a test is skipped. */
export const CHROMIUM_PACKAGE = 'chromium';

/** The first Chromium-like browser on PATH (or in CHROMIUM_BIN), if any. */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_BIN, 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].filter((c): c is string => !!c);
  for (const c of candidates) {
    const found = spawnSync('sh', ['-c', `command -v "$1"`, 'sh', c], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

export interface DomFacts {
  title: string;
  elements: number;
  ids: number;
  duplicateIds: string[];
  /** `href="#x"` whose target is not in the DOM. */
  brokenLinks: string[];
  /** Links that leave the page. */
  externalLinks: string[];
  /** Computed height of the body, to see that something rendered. */
  bodyHeight: number;
  /** The page's text (innerText), first 200,000 characters. */
  text: string;
  /** Elements matching each selector passed in `count`. */
  counts: Record<string, number>;
}

export interface PageReport {
  file: string;
  url: string;
  console: { type: string; text: string }[];
  exceptions: string[];
  log: { level: string; source: string; text: string; url?: string }[];
  /** Requests other than the page's own document. */
  requests: string[];
  dom: DomFacts;
  /** Bytes of a PNG screenshot of the first screen. */
  screenshotBytes: number;
}

export interface ChromiumOptions {
  /** Whole session limit; default 60 s. */
  timeoutMs?: number;
  /** CSS selectors to count in each page. */
  count?: string[];
  /** Browser binary; default `findChromium()`. */
  binary?: string;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

/** Loads each file in turn in one headless browser and reports on it. */
export async function renderInChromium(files: string[], options: ChromiumOptions = {}): Promise<PageReport[]> {
  const binary = options.binary ?? findChromium();
  if (!binary) throw new Error(`no Chromium on PATH (Debian package: ${CHROMIUM_PACKAGE})`);
  const profile = mkdtempSync(join(tmpdir(), 'cantrip-chromium-'));
  const child = spawn(
    binary,
    [
      '--headless',
      '--disable-gpu',
      '--no-sandbox',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-breakpad',
      '--disable-default-apps',
      '--mute-audio',
      '--host-resolver-rules=MAP * ~NOTFOUND',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });

  let nextId = 1;
  const pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  const listeners: ((m: Message) => void)[] = [];
  let buffer = '';
  fromBrowser.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end)) as Message;
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined && pending.has(message.id)) {
        const p = pending.get(message.id)!;
        pending.delete(message.id);
        if (message.error) p.reject(new Error(`DevTools: ${message.error.message}`));
        else p.resolve(message);
      } else for (const l of listeners) l(message);
    }
  });
  const exited = new Promise<never>((_, reject) => {
    child.on('exit', (code, signal) => reject(new Error(`Chromium exited (${code ?? signal}) before the checks finished:\n${stderr}`)));
    child.on('error', (error) => reject(error));
  });
  exited.catch(() => undefined);
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const reply = new Promise<Message>((resolve, reject) => pending.set(id, { resolve, reject }));
    toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) })}\0`);
    return Promise.race([reply, exited]).then((m) => m.result ?? {});
  };
  const waitFor = (predicate: (m: Message) => boolean, ms: number): Promise<Message> =>
    new Promise<Message>((resolve, reject) => {
      const stop = (): void => {
        const at = listeners.indexOf(listener);
        if (at >= 0) listeners.splice(at, 1);
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`timed out after ${ms} ms waiting for the page`));
      }, ms);
      const listener = (m: Message): void => {
        if (!predicate(m)) return;
        clearTimeout(timer);
        stop();
        resolve(m);
      };
      listeners.push(listener);
    });

  const work = async (): Promise<PageReport[]> => {
    const { targetId } = (await send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    let current: PageReport | undefined;
    listeners.push((m) => {
      if (m.sessionId !== sessionId || !current) return;
      const p = m.params ?? {};
      switch (m.method) {
        case 'Runtime.consoleAPICalled': {
          const args = (p.args as { value?: unknown; description?: string }[] | undefined) ?? [];
          current.console.push({ type: String(p.type), text: args.map((a) => a.description ?? String(a.value)).join(' ') });
          break;
        }
        case 'Runtime.exceptionThrown':
          current.exceptions.push(JSON.stringify((p.exceptionDetails as Record<string, unknown> | undefined)?.text ?? p));
          break;
        case 'Log.entryAdded': {
          const e = p.entry as { level: string; source: string; text: string; url?: string };
          current.log.push({ level: e.level, source: e.source, text: e.text, ...(e.url && { url: e.url }) });
          break;
        }
        case 'Network.requestWillBeSent': {
          const url = String((p.request as { url: string }).url);
          if (url !== current.url) current.requests.push(url);
          break;
        }
      }
    });
    for (const domain of ['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable']) await send(domain, {}, sessionId);
    const reports: PageReport[] = [];
    for (const file of files) {
      const url = pathToFileURL(file).href;
      current = { file, url, console: [], exceptions: [], log: [], requests: [], dom: undefined as unknown as DomFacts, screenshotBytes: 0 };
      const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 30_000);
      const nav = await send('Page.navigate', { url }, sessionId);
      if (nav.errorText) throw new Error(`cannot open ${url}: ${String(nav.errorText)}`);
      await loaded;
      // Late events (a deferred request, a CSP report) arrive within a few frames.
      await new Promise((r) => setTimeout(r, 300));
      const expression = `(() => {
        const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
        const seen = new Set(); const dup = [];
        for (const id of ids) { if (seen.has(id)) dup.push(id); seen.add(id); }
        const hrefs = [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
        const counts = {};
        for (const s of ${JSON.stringify(options.count ?? [])}) counts[s] = document.querySelectorAll(s).length;
        return {
          title: document.title,
          elements: document.getElementsByTagName('*').length,
          ids: ids.length,
          duplicateIds: dup,
          brokenLinks: hrefs.filter((h) => h.startsWith('#') && !document.getElementById(decodeURIComponent(h.slice(1)))),
          externalLinks: hrefs.filter((h) => !h.startsWith('#')),
          bodyHeight: document.body.getBoundingClientRect().height,
          text: document.body.innerText.slice(0, 200000),
          counts,
        };
      })()`;
      const evaluated = (await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)) as { result: { value: DomFacts }; exceptionDetails?: unknown };
      if (evaluated.exceptionDetails) throw new Error(`evaluating in ${url} failed: ${JSON.stringify(evaluated.exceptionDetails)}`);
      current.dom = evaluated.result.value;
      const shot = (await send('Page.captureScreenshot', { format: 'png' }, sessionId)) as { data: string };
      current.screenshotBytes = Buffer.from(shot.data, 'base64').length;
      reports.push(current);
    }
    current = undefined;
    await send('Browser.close').catch(() => undefined);
    return reports;
  };

  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Chromium checks took longer than ${options.timeoutMs ?? 60_000} ms`)), options.timeoutMs ?? 60_000);
  });
  try {
    return await Promise.race([work(), limit, exited]);
  } finally {
    clearTimeout(timer);
    await stopBrowser(child);
    // The browser's helper processes may still be letting go of the profile for a moment.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // A leftover temporary profile is not worth failing a test over.
    }
  }
}

/** Waits for the browser to exit after Browser.close; then asks it to stop, then forces it. */
async function stopBrowser(child: ChildProcess): Promise<void> {
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  if (!running()) return;
  const gone = new Promise((r) => child.once('exit', r));
  const wait = (ms: number): Promise<unknown> => Promise.race([gone, new Promise((r) => setTimeout(r, ms))]);
  await wait(3000);
  if (running()) child.kill('SIGTERM');
  await wait(3000);
  if (running()) child.kill('SIGKILL');
  await wait(1000);
}
