// A tiny in-memory stand-in for `timbre serve`, speaking docs/web-api.md, for
// looking at the built app without the Go backend:
//   npm run build && node scripts/mock-server.mjs [port]
// Serves web/dist with SPA fallback plus mock /api, /v1 and /v2 routes.
// Development aid only: no persistence, no real auth, audio is a sine tone.
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const port = Number(process.argv[2] ?? process.env.PORT ?? 5175);
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const origin = `http://127.0.0.1:${port}`;

function sineWav(seconds = 3, freq = 440, rate = 22050) {
  const n = Math.floor(seconds * rate);
  const buf = Buffer.alloc(44 + n * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + n * 2, 4);
  buf.write('WAVEfmt ', 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * freq * i) / rate) * 8000), 44 + i * 2);
  return buf;
}

const users = new Map(); // email -> {user_id, email, password, verified}
const sessions = new Map(); // token -> email
const codes = new Map(); // code -> {email, kind}
const mailbox = [];
const history = [];
const shares = new Map(); // token -> history id
const apiKeys = [];
const sub = { tier: 'free', character_count: 1280, character_limit: 10000, next_character_count_reset_unix: Math.floor(Date.now() / 1000) + 20 * 86400, status: 'active' };

users.set('demo@timbre.dev', { user_id: 'u_demo', email: 'demo@timbre.dev', password: 'password123', verified: true });

const voices = [
  ['21m00Tcm4TlvDq8ikWAM', 'Rachel', { accent: 'american', gender: 'female', age: 'young', descriptive: 'calm', use_case: 'narration' }],
  ['29vD33N1CtxCmqQRPOHJ', 'Drew', { accent: 'american', gender: 'male', age: 'middle aged', use_case: 'news' }],
  ['EXAVITQu4vr4xnSDxMaL', 'Sarah', { accent: 'american', gender: 'female', age: 'young', descriptive: 'soft' }],
  ['JBFqnCBsd6RMkjVDRZzb', 'George', { accent: 'british', gender: 'male', age: 'middle aged', descriptive: 'warm' }],
  ['pFZP5JQG7iQjIQuC4Bku', 'Lily', { accent: 'british', gender: 'female', age: 'middle aged' }],
].map(([voice_id, name, labels]) => ({ voice_id, name, category: 'premade', labels, description: null, preview_url: `/mock/preview/${voice_id}.wav` }));

const models = [
  { model_id: 'eleven_multilingual_v2', name: 'Eleven Multilingual v2', description: 'Our most lifelike model with rich emotional expression.', can_do_text_to_speech: true, can_use_style: true, can_use_speaker_boost: true, maximum_text_length_per_request: 10000 },
  { model_id: 'eleven_flash_v2_5', name: 'Eleven Flash v2.5', description: 'Ultra low latency.', can_do_text_to_speech: true, can_use_style: false, can_use_speaker_boost: true, maximum_text_length_per_request: 40000 },
  { model_id: 'eleven_multilingual_sts_v2', name: 'Multilingual STS v2', can_do_text_to_speech: false },
];

const now = () => Math.floor(Date.now() / 1000);
function seedHistory() {
  const texts = [
    'Welcome to Timbre, a self-hosted voice platform that speaks the ElevenLabs API.',
    'The quick brown fox jumps over the lazy dog.',
    'In the beginning, there was silence. Then came the voice.',
  ];
  texts.forEach((text, i) =>
    history.push({ history_item_id: `seed${i}`, voice_id: voices[i].voice_id, voice_name: voices[i].name, model_id: 'eleven_multilingual_v2', text, date_unix: now() - (i + 1) * 3600, character_count_change_from: 0, character_count_change_to: text.length, content_type: 'audio/mpeg', state: 'created', settings: null, feedback: null, output_format: 'mp3_44100_128' }),
  );
}
seedHistory();

function cookies(req) {
  return Object.fromEntries((req.headers.cookie ?? '').split(';').filter(Boolean).map((c) => c.trim().split('=').map(decodeURIComponent)));
}
function send(res, status, body, headers = {}) {
  const data = body === undefined ? '' : Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': Buffer.isBuffer(body) ? 'audio/wav' : 'application/json', ...headers });
  res.end(data);
}
const err = (res, status, code, message) => send(res, status, { detail: { status: code, message } });
async function readJson(req) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return {};
  }
}
function mail(to, subject, text) {
  mailbox.unshift({ id: randomUUID(), to, subject, text, html: '', created_at_unix: now() });
}

async function api(req, res, url) {
  const method = req.method;
  const path = url.pathname;
  const c = cookies(req);
  const email = sessions.get(c.xi_website_session);
  const user = email ? users.get(email) : undefined;
  if (!['GET', 'HEAD'].includes(method) && user && req.headers['x-csrf-token'] !== c.xi_website_csrf) {
    return err(res, 403, 'csrf_failed', 'CSRF token missing or invalid.');
  }
  const key = `${method} ${path}`;

  // --- auth
  if (key === 'POST /api/auth/sign-up') {
    const b = await readJson(req);
    if (!b.terms_accepted) return send(res, 422, { detail: [{ loc: ['body', 'terms_accepted'], msg: 'Terms must be accepted', type: 'value_error' }] });
    if (users.has(b.email)) return err(res, 409, 'email_taken', 'An account with this email already exists.');
    users.set(b.email, { user_id: randomUUID(), email: b.email, password: b.password, verified: false });
    const code = randomBytes(8).toString('hex');
    codes.set(code, { email: b.email, kind: 'verify' });
    mail(b.email, 'Verify your email for Timbre', `Hello,\n\nFollow this link to verify your email address:\n${origin}/app/action?mode=verifyEmail&oobCode=${code}&lang=en\n\nThanks,\nTimbre`);
    return send(res, 201, { user_id: users.get(b.email).user_id, email: b.email });
  }
  if (key === 'POST /api/auth/sign-in') {
    const b = await readJson(req);
    const u = users.get(b.email);
    if (!u || u.password !== b.password) return err(res, 401, 'invalid_credentials', 'Invalid email or password.');
    if (!u.verified) return err(res, 403, 'email_not_verified', 'Please verify your email before signing in.');
    const token = randomUUID();
    sessions.set(token, u.email);
    return send(res, 200, { user_id: u.user_id, email: u.email, workspace_id: 'w1' }, {
      'Set-Cookie': [`xi_website_session=${token}; Path=/; HttpOnly; SameSite=Strict`, `xi_website_csrf=${randomUUID()}; Path=/; SameSite=Strict`],
    });
  }
  if (key === 'POST /api/auth/sign-out') {
    sessions.delete(c.xi_website_session);
    res.writeHead(204, { 'Set-Cookie': ['xi_website_session=; Path=/; Max-Age=0', 'xi_website_csrf=; Path=/; Max-Age=0'] });
    return res.end();
  }
  if (key === 'GET /api/auth/session') {
    if (!user) return err(res, 401, 'unauthorized', 'Not signed in.');
    return send(res, 200, { user_id: user.user_id, email: user.email, email_verified: true, workspace_id: 'w1', first_name: null });
  }
  if (key === 'POST /api/auth/verify-email') {
    const b = await readJson(req);
    const entry = codes.get(b.code);
    if (!entry || entry.kind !== 'verify') return err(res, 400, 'invalid_action_code', 'The code is invalid.');
    codes.delete(b.code);
    users.get(entry.email).verified = true;
    return send(res, 200, { email: entry.email });
  }
  if (key === 'POST /api/auth/send-verification-email') {
    const b = await readJson(req);
    const code = randomBytes(8).toString('hex');
    codes.set(code, { email: b.email, kind: 'verify' });
    mail(b.email, 'Verify your email for Timbre', `Verify: ${origin}/app/action?mode=verifyEmail&oobCode=${code}&lang=en`);
    return send(res, 200, { status: 'ok' });
  }
  if (key === 'POST /api/auth/send-password-reset-email') {
    const b = await readJson(req);
    if (users.has(b.email)) {
      const code = randomBytes(8).toString('hex');
      codes.set(code, { email: b.email, kind: 'reset' });
      mail(b.email, 'Reset your Timbre password', `Reset your password: ${origin}/app/action?mode=resetPassword&oobCode=${code}`);
    }
    return send(res, 200, { status: 'ok' });
  }
  if (key === 'POST /api/auth/check-reset-code') {
    const b = await readJson(req);
    const entry = codes.get(b.code);
    if (!entry || entry.kind !== 'reset') return err(res, 400, 'invalid_action_code', 'The code is invalid.');
    return send(res, 200, { email: entry.email });
  }
  if (key === 'POST /api/auth/reset-password') {
    const b = await readJson(req);
    const entry = codes.get(b.code);
    if (!entry || entry.kind !== 'reset') return err(res, 400, 'invalid_action_code', 'The code is invalid.');
    users.get(entry.email).password = b.password;
    codes.delete(b.code);
    return send(res, 200, { status: 'ok' });
  }
  if (key === 'GET /api/dev/mailbox') return send(res, 200, { messages: mailbox });
  if (path.startsWith('/api/share/')) {
    const [, , , token, audio] = path.split('/');
    const item = history.find((h) => h.history_item_id === shares.get(token));
    if (!item) return err(res, 404, 'not_found', 'Share link not found.');
    if (audio === 'audio') return send(res, 200, sineWav(3, 330));
    return send(res, 200, { text: item.text, voice_name: item.voice_name, date_unix: item.date_unix, audio_url: `/api/share/${token}/audio` });
  }
  if (path.startsWith('/mock/preview/')) return send(res, 200, sineWav(1.5, 520));

  // --- everything below needs a session
  if (!user) return err(res, 401, 'unauthorized', 'Not signed in.');
  if (key === 'GET /v1/user/subscription') return send(res, 200, sub);
  if (key === 'GET /v1/models') return send(res, 200, models);
  if (key === 'GET /v2/voices') {
    const q = (url.searchParams.get('search') ?? '').toLowerCase();
    const list = voices.filter((v) => !q || v.name.toLowerCase().includes(q) || Object.values(v.labels).some((l) => l.includes(q)));
    return send(res, 200, { voices: list, has_more: false, total_count: list.length, next_page_token: null });
  }
  if (key === 'GET /v1/voices/settings/default') return send(res, 200, { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true, speed: 1 });
  if (method === 'POST' && path.startsWith('/v1/text-to-speech/')) {
    const voiceId = path.split('/')[3];
    const b = await readJson(req);
    const voice = voices.find((v) => v.voice_id === voiceId);
    if (!voice) return err(res, 404, 'voice_not_found', 'A voice with this id was not found.');
    const cost = (b.text ?? '').length;
    if (sub.character_count + cost > sub.character_limit) return err(res, 401, 'quota_exceeded', `This request exceeds your quota. You have ${sub.character_limit - sub.character_count} credits remaining, while ${cost} credits are required for this request.`);
    sub.character_count += cost;
    const id = randomBytes(10).toString('hex');
    history.unshift({ history_item_id: id, voice_id: voiceId, voice_name: voice.name, model_id: b.model_id, text: b.text, date_unix: now(), character_count_change_from: sub.character_count - cost, character_count_change_to: sub.character_count, content_type: 'audio/mpeg', state: 'created', settings: b.voice_settings, feedback: null, output_format: url.searchParams.get('output_format') });
    return send(res, 200, sineWav(Math.min(30, 1 + cost / 15)), { 'history-item-id': id, 'character-cost': String(cost), 'request-id': randomUUID() });
  }
  if (key === 'GET /v1/history') {
    const size = Number(url.searchParams.get('page_size') ?? 100);
    const after = url.searchParams.get('start_after_history_item_id');
    const start = after ? history.findIndex((h) => h.history_item_id === after) + 1 : 0;
    const page = history.slice(start, start + size);
    return send(res, 200, { history: page, has_more: start + size < history.length, last_history_item_id: page.at(-1)?.history_item_id ?? null, scanned_until: null });
  }
  if (key === 'POST /v1/history/download') {
    const b = await readJson(req);
    const item = history.find((h) => h.history_item_id === b.history_item_ids?.[0]);
    if (!item) return err(res, 400, 'invalid_history_item', 'History item not found.');
    // Like the real server: an ASCII filename plus filename*=UTF-8'' for the exact name.
    const name = `${item.voice_name}_${item.history_item_id.slice(0, 6)}.wav`;
    const ascii = name.replace(/[^\x20-\x7e]|"/g, '_');
    return send(res, 200, sineWav(2), {
      'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
  }
  const m = path.match(/^\/v1\/history\/([^/]+)(\/[a-z-]+)?$/);
  if (m) {
    const item = history.find((h) => h.history_item_id === m[1]);
    if (!item) return err(res, 404, 'not_found', 'History item not found.');
    if (method === 'GET' && !m[2]) return send(res, 200, item);
    if (method === 'GET' && m[2] === '/audio') return send(res, 200, sineWav(Math.min(30, 1 + item.text.length / 15)));
    if (method === 'DELETE' && !m[2]) {
      history.splice(history.indexOf(item), 1);
      return send(res, 200, { status: 'ok' });
    }
    if (method === 'POST' && m[2] === '/feedback') {
      const b = await readJson(req);
      const len = (b.feedback ?? '').trim().length;
      if (len > 200 || (len > 0 && len < 20)) return send(res, 422, { detail: [{ loc: ['body', 'feedback'], msg: 'Feedback must be between 20 and 200 characters.', type: 'value_error' }] });
      item.feedback = { ...b, review_status: 'not_reviewed' };
      return send(res, 200, { status: 'ok' });
    }
    if (method === 'GET' && m[2] === '/share-link') {
      let token = [...shares].find(([, id]) => id === item.history_item_id)?.[0];
      if (!token) {
        token = randomBytes(12).toString('hex');
        shares.set(token, item.history_item_id);
      }
      return send(res, 200, { share_link: `${origin}/share/${token}`, public_user_name: 'demo' });
    }
  }
  if (key === 'GET /v1/user/api-keys') return send(res, 200, { api_keys: apiKeys });
  if (key === 'POST /v1/user/create-api-key') {
    const b = await readJson(req);
    const secret = `sk_${randomBytes(24).toString('hex')}`;
    const k = { key_id: randomUUID(), name: b.name, key_preview: `sk_…${secret.slice(-4)}`, created_at_unix: now() };
    apiKeys.push(k);
    return send(res, 200, { ...k, xi_api_key: secret });
  }
  if (key === 'DELETE /v1/user/delete-api-key') {
    const i = apiKeys.findIndex((k) => k.key_id === url.searchParams.get('key_id'));
    if (i >= 0) apiKeys.splice(i, 1);
    return send(res, 200, { status: 'ok' });
  }
  return err(res, 404, 'not_found', `No mock for ${key}`);
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

createServer(async (req, res) => {
  const url = new URL(req.url, origin);
  try {
    if (/^\/(api|v1|v2|mock)\//.test(url.pathname)) return await api(req, res, url);
    const file = normalize(join(dist, url.pathname));
    const target = file.startsWith(dist) && existsSync(file) && statSync(file).isFile() ? file : join(dist, 'index.html');
    res.writeHead(200, { 'Content-Type': types[extname(target)] ?? 'application/octet-stream' });
    createReadStream(target).pipe(res);
  } catch (e) {
    console.error(e);
    err(res, 500, 'internal', 'Internal error');
  }
}).listen(port, '127.0.0.1', () => console.log(`mock Timbre on ${origin} (demo@timbre.dev / password123)`));
