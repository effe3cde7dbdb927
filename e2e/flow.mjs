// Shared harness of the workspace flows (invite.mjs, totp.mjs, sso.mjs): headless Chromium with
// the flags of browser.mjs, one JSON line per step, a screenshot at the end (or failure-<flow>.png
// at the failing step), page errors and 5xx responses collected and fatal, and a small RFC 6238
// TOTP generator on node:crypto.
import { chromium } from 'playwright-core';
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
export class CheckError extends Error {}
export function assert(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

/** env reads a required environment variable. */
export function env(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`set ${name}`);
    process.exit(2);
  }
  return v;
}

// ---- TOTP (RFC 6238 over RFC 4226: HMAC-SHA1, 30-second steps, 6 digits) ----

/** base32Decode reads an RFC 4648 base32 string (spaces and padding ignored). */
export function base32Decode(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const clean = s.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out = [];
  for (const ch of clean) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** totpStep is the RFC 6238 time step of a moment (ms since the epoch). */
export const totpStep = (ms = Date.now(), period = 30) => Math.floor(ms / 1000 / period);

/** hotp is the RFC 4226 code of a counter. */
export function hotp(key, counter, digits = 6) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const off = mac[mac.length - 1] & 0x0f;
  const bin = ((mac[off] & 0x7f) << 24) | (mac[off + 1] << 16) | (mac[off + 2] << 8) | mac[off + 3];
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** totp is the code of a base32 secret at a time step. */
export const totp = (secret, step = totpStep()) => hotp(base32Decode(secret), step);

// RFC 6238 appendix B (SHA-1, the 20-byte ASCII key "12345678901234567890", 8 digits): a
// self-check, so a broken generator fails here rather than as a refused code.
for (const [seconds, want] of [[59, '94287082'], [1111111109, '07081804'], [20000000000, '65353130']]) {
  const got = hotp(Buffer.from('12345678901234567890'), Math.floor(seconds / 30), 8);
  if (got !== want) throw new Error(`TOTP self-check failed at T=${seconds}: ${got}, want ${want}`);
}

// ---- the browser ----

/**
 * run drives one flow: fn({ browser, newPage, step, shot }) with a fresh browser; every page
 * made by newPage is watched for uncaught errors and 5xx answers. Exits the process.
 * args adds Chromium flags (e.g. a fake microphone).
 */
export async function run(flow, fn, { args = [] } = {}) {
  const baseUrl = env('TIMBRE_BASE_URL').replace(/\/$/, '');
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const shots = process.env.TIMBRE_SCREENSHOTS || join(here, 'screenshots');
  mkdirSync(shots, { recursive: true });

  const browser = await chromium.launch({
    executablePath,
    headless: !process.env.HEADED,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
      ...args,
    ],
  });
  const pageErrors = [];
  const consoleErrors = [];
  const failedResponses = [];
  const clientErrors = []; // 4xx answers: expected ones (a refused call, a signed-out session check) and clues
  const contexts = [];
  let current = null; // the page the last step used, for the failure screenshot

  /**
   * A page in a fresh context (its own cookies and storage): another person, or a fresh browser.
   * viewport defaults to 1440×900.
   */
  async function newPage(label = 'page', { viewport = { width: 1440, height: 900 } } = {}) {
    const context = await browser.newContext({ baseURL: baseUrl, acceptDownloads: true, viewport });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(`${label}: ${String(err?.stack ?? err)}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(`${label}: ${msg.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 500) failedResponses.push(`${label}: ${r.request().method()} ${r.url()} → ${r.status()}`);
      else if (r.status() >= 400) clientErrors.push(`${label}: ${r.request().method()} ${r.url()} → ${r.status()}`);
    });
    current = page;
    return page;
  }

  const reported = new WeakSet();
  async function step(name, page, fn) {
    const start = Date.now();
    current = page;
    try {
      const detail = await fn();
      emit({ flow, step: name, ok: true, ms: Date.now() - start, ...(detail === undefined ? {} : { detail }) });
      return detail;
    } catch (err) {
      emit({ flow, step: name, ok: false, ms: Date.now() - start, url: page?.url(), error: String(err?.message ?? err).replace(/\u001b\[[0-9;]*m/g, '') });
      reported.add(err);
      throw err;
    }
  }
  async function shot(page, name) {
    await page.waitForTimeout(300); // let toasts and menus settle
    const file = join(shots, `${name}.png`);
    await page.screenshot({ path: file });
    emit({ flow, screenshot: file });
    return file;
  }

  let ok = false;
  const started = Date.now();
  try {
    emit({ flow, info: 'browser', version: browser.version(), baseUrl });
    await fn({ browser, baseUrl, newPage, step, shot });
    assert(pageErrors.length === 0, `uncaught page errors: ${pageErrors.join(' | ')}`);
    assert(failedResponses.length === 0, `server errors: ${failedResponses.join(' | ')}`);
    ok = true;
  } catch (err) {
    if (!(err instanceof Object) || !reported.has(err)) {
      emit({ flow, step: 'final checks', ok: false, error: err instanceof CheckError ? err.message : (err?.stack ?? String(err)) });
    }
    if (pageErrors.length || failedResponses.length) emit({ pageErrors, failedResponses });
    try {
      const file = join(shots, `failure-${flow}.png`);
      await current?.screenshot({ path: file, fullPage: true });
      emit({ screenshot: file, url: current?.url() });
    } catch {
      /* the page may be gone */
    }
  } finally {
    if (clientErrors.length) emit({ clientErrors: clientErrors.slice(0, 20) });
    if (consoleErrors.length) emit({ consoleErrors: consoleErrors.slice(0, 20) });
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close().catch(() => {});
  }
  console.log(`${flow}: ${ok ? 'all steps passed' : 'failed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(ok ? 0 : 1);
}

// ---- app helpers ----

/** signIn fills the password sign-in form (the page must be on /app/sign-in). */
export async function fillSignIn(page, email, password) {
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** csrf is the page's CSRF token (the readable cookie the app echoes in X-CSRF-Token). */
export async function csrf(page) {
  const c = (await page.context().cookies()).find((k) => k.name === 'xi_website_csrf');
  assert(c?.value, 'no xi_website_csrf cookie');
  return c.value;
}

/** apiFromPage calls the API from the page's own context (fetch with the app's credentials). */
export async function apiFromPage(page, method, path, body) {
  const token = await csrf(page);
  return page.evaluate(
    async ({ method, path, body, token }) => {
      const res = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, json, text: text.slice(0, 400) };
    },
    { method, path, body, token },
  );
}

/** session is GET /api/auth/session from the page's context. */
export async function session(page) {
  const res = await page.request.get('/api/auth/session');
  assert(res.ok(), `GET /api/auth/session → ${res.status()}`);
  return res.json();
}

/** From the sign-in page to the SSO page and on to the identity provider with the work email. */
export async function startSSO(page, email) {
  await page.goto('/app/sign-in');
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.waitForURL('**/app/sso**');
  await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor();
  await page.getByLabel('Work email').fill(email);
  await page.getByRole('button', { name: 'Continue with SSO' }).click();
}

/** The newest mail to an address whose subject has the words (the mailbox lists the newest first). */
export async function mailTo(page, to, subject) {
  for (let i = 0; i < 50; i++) {
    const res = await page.request.get('/api/dev/mailbox');
    assert(res.ok(), `GET /api/dev/mailbox → ${res.status()}`);
    const { messages } = await res.json();
    const m = messages.find((x) => String(x.to).includes(to) && x.subject.includes(subject)); // newest first
    if (m) return m;
    await page.waitForTimeout(100);
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}
export const sixDigits = (m) => {
  const code = /\b(\d{6})\b/.exec(m.text ?? '')?.[1];
  assert(code, `no 6-digit code in: ${(m.text ?? '').slice(0, 200)}`);
  return code;
};
