// SDK compatibility check: drives a running Timbre with the official ElevenLabs JS SDK.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/sdk.mjs
//
// Prints one JSON line per check ({"check","ok","ms",…}) and exits 1 when any check fails.
// Normally run by sdk_test.go, which starts the server and makes the key.
import { ElevenLabsClient, ElevenLabsError, AudioFormat, RealtimeEvents } from '@elevenlabs/elevenlabs-js';
import { emit, CheckError, assert, check, finish, describeError } from './checks.mjs';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}

const require = createRequire(import.meta.url);
const sdkVersion = require('@elevenlabs/elevenlabs-js/package.json').version;

// maxRetries 0: a 5xx must show up as a failure here, not be hidden by the SDK's retries.
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 30 });

const VOICE_ID = '21m00Tcm4TlvDq8ikWAM'; // Rachel: the stock ElevenLabs voice id
const MODEL_ID = 'eleven_multilingual_v2';
const TEXT = 'Hello from the Timbre end-to-end test.';

async function collect(stream) {
  const chunks = [];
  let n = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    n++;
  }
  return { bytes: Buffer.concat(chunks.map((c) => Buffer.from(c))), chunks: n };
}

/** Whether buf starts like an MP3 file: an ID3v2 tag followed by a frame, or a frame sync. */
function looksLikeMp3(buf) {
  if (buf.length < 4) return false;
  let off = 0;
  if (buf.subarray(0, 3).toString('latin1') === 'ID3') {
    if (buf.length < 10) return false;
    const size = ((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f);
    off = 10 + size;
    if (off + 2 > buf.length) return false;
  }
  return buf[off] === 0xff && (buf[off + 1] & 0xe0) === 0xe0;
}

function assertMp3(bytes, what) {
  assert(bytes.length > 1000, `${what}: only ${bytes.length} bytes`);
  assert(looksLikeMp3(bytes), `${what}: not MP3 (first bytes ${bytes.subarray(0, 8).toString('hex')})`);
}

// MPEG audio frame tables (Layer III): kbit/s by bitrate index, Hz by sample-rate index.
const MP3_BITRATES = {
  1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/**
 * Walks an MP3 file frame by frame (after any ID3v2 tag, up to an ID3v1 tag) and returns the
 * frame count, sample rate and duration; throws when a frame header is broken or a frame is cut.
 */
function decodeMp3Frames(buf, what) {
  let off = 0;
  if (buf.subarray(0, 3).toString('latin1') === 'ID3') {
    off = 10 + (((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f));
  }
  let frames = 0;
  let samples = 0;
  let rate = 0;
  while (off < buf.length) {
    if (buf.length - off === 128 && buf.subarray(off, off + 3).toString('latin1') === 'TAG') break;
    assert(off + 4 <= buf.length, `${what}: ${buf.length - off} stray bytes at ${off}`);
    const h = buf.readUInt32BE(off);
    assert(h >>> 21 === 0x7ff, `${what}: no frame sync at byte ${off} (frame ${frames})`);
    const version = (h >>> 19) & 3; // 3 = MPEG 1, 2 = MPEG 2, 0 = MPEG 2.5
    const layer = (h >>> 17) & 3; // 1 = Layer III
    const bi = (h >>> 12) & 15;
    const ri = (h >>> 10) & 3;
    assert(version !== 1 && layer === 1 && bi !== 0 && bi !== 15 && ri !== 3, `${what}: bad frame header ${h.toString(16)} at ${off}`);
    const kbps = MP3_BITRATES[version === 3 ? 1 : 2][bi];
    const hz = MP3_RATES[version][ri];
    assert(rate === 0 || rate === hz, `${what}: sample rate changes from ${rate} to ${hz} at frame ${frames}`);
    rate = hz;
    const perFrame = version === 3 ? 1152 : 576;
    const len = Math.floor(((perFrame / 8) * kbps * 1000) / hz) + ((h >>> 9) & 1);
    assert(off + len <= buf.length, `${what}: frame ${frames} cut short (${buf.length - off} of ${len} bytes)`);
    off += len;
    frames++;
    samples += perFrame;
  }
  assert(frames > 0, `${what}: no frames`);
  return { frames, sampleRate: rate, seconds: samples / rate };
}

/** Lower-case words of a text, punctuation dropped. */
const wordsOf = (text) => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

/** Word-level edit distance (substitutions, insertions, deletions) between two texts. */
function wordErrors(want, got) {
  const a = wordsOf(want);
  const b = wordsOf(got);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function assertAlignment(a, text, what) {
  assert(a, `${what}: alignment missing`);
  const { characters, characterStartTimesSeconds: s, characterEndTimesSeconds: e } = a;
  assert(Array.isArray(characters) && Array.isArray(s) && Array.isArray(e), `${what}: alignment arrays missing`);
  assert(
    characters.length === s.length && s.length === e.length,
    `${what}: lengths differ: characters ${characters.length}, starts ${s.length}, ends ${e.length}`,
  );
  if (text !== undefined) {
    assert(characters.length === [...text].length, `${what}: ${characters.length} characters aligned, input has ${[...text].length}`);
    assert(characters.join('') === text, `${what}: characters ${JSON.stringify(characters.join(''))} != input text`);
  }
  for (let i = 0; i < s.length; i++) {
    assert(s[i] <= e[i], `${what}: character ${i} ends (${e[i]}) before it starts (${s[i]})`);
    if (i > 0) assert(s[i] >= s[i - 1], `${what}: start times go backwards at ${i}`);
  }
}

emit({ info: 'sdk', package: '@elevenlabs/elevenlabs-js', version: sdkVersion, baseUrl, node: process.version });

let historyItemId;
let speechMp3;
const ttsRequest = { text: TEXT, modelId: MODEL_ID, outputFormat: 'mp3_44100_128' };

await check('textToSpeech.convert', async () => {
  const { data, rawResponse } = await client.textToSpeech.convert(VOICE_ID, ttsRequest).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'convert');
  speechMp3 = bytes;
  historyItemId = rawResponse.headers.get('history-item-id');
  const cost = rawResponse.headers.get('character-cost');
  assert(historyItemId, 'no history-item-id header');
  assert(cost !== null && Number(cost) === TEXT.length, `character-cost header ${cost}, want ${TEXT.length}`);
  assert(rawResponse.headers.get('request-id'), 'no request-id header');
  const type = rawResponse.headers.get('content-type');
  assert(type && type.startsWith('audio/mpeg'), `content-type ${type}`);
  return { bytes: bytes.length, historyItemId, characterCost: Number(cost) };
});

await check('forcedAlignment.create', async () => {
  assert(speechMp3, 'no speech from textToSpeech.convert to align');
  const r = await client.forcedAlignment.create({ file: new Blob([speechMp3], { type: 'audio/mpeg' }), text: TEXT });
  const words = TEXT.split(' ');
  assert(r.words.length === words.length, `${r.words.length} words, want ${words.length}`);
  r.words.forEach((w, i) => {
    assert(w.text === words[i], `word ${i} is ${w.text}, want ${words[i]}`);
    assert(typeof w.loss === 'number' && w.loss >= 0 && w.end >= w.start, `word ${w.text}: ${JSON.stringify(w)}`);
  });
  assert(r.characters.map((c) => c.text).join('') === TEXT, 'the characters do not spell the text');
  assert(typeof r.loss === 'number', `loss ${r.loss}`);
  const { seconds } = decodeMp3Frames(speechMp3, 'the aligned speech');
  let last = 0;
  r.characters.forEach((c, i) => {
    assert(typeof c.start === 'number' && typeof c.end === 'number' && c.end >= c.start, `character ${i}: ${JSON.stringify(c)}`);
    assert(c.start >= last - 1e-6, `character ${i} starts (${c.start}) before the one before it (${last})`);
    assert(c.end <= seconds + 0.05, `character ${i} ends at ${c.end}, after the audio (${seconds.toFixed(2)} s)`);
    last = c.start;
  });
  // The words are the runs of characters between spaces: same times at both ends.
  const firstChar = r.characters[0];
  const lastChar = r.characters.at(-1);
  assert(Math.abs(r.words[0].start - firstChar.start) < 1e-6, `first word starts at ${r.words[0].start}, its first character at ${firstChar.start}`);
  assert(Math.abs(r.words.at(-1).end - lastChar.end) < 1e-6, `last word ends at ${r.words.at(-1).end}, its last character at ${lastChar.end}`);
  assert(r.words.at(-1).end - r.words[0].start > seconds / 2, `the words span ${r.words[0].start}…${r.words.at(-1).end} of ${seconds.toFixed(2)} s`);
  return { words: r.words.length, characters: r.characters.length, loss: r.loss, span: [r.words[0].start, r.words.at(-1).end], audio: seconds };
});

await check('textToSpeech.stream', async () => {
  const stream = await client.textToSpeech.stream(VOICE_ID, {
    text: 'Streaming speech, one chunk after another.',
    modelId: 'eleven_flash_v2_5',
    outputFormat: 'mp3_22050_32',
  });
  const { bytes, chunks } = await collect(stream);
  assertMp3(bytes, 'stream');
  return { bytes: bytes.length, chunks };
});

await check('textToSpeech.convertWithTimestamps', async () => {
  const text = 'Timestamps, please.';
  const r = await client.textToSpeech.convertWithTimestamps(VOICE_ID, { text, modelId: MODEL_ID });
  assert(typeof r.audioBase64 === 'string' && r.audioBase64.length > 0, 'no audio_base64');
  assertMp3(Buffer.from(r.audioBase64, 'base64'), 'with-timestamps audio');
  assertAlignment(r.alignment, text, 'alignment');
  if (r.normalizedAlignment) assertAlignment(r.normalizedAlignment, undefined, 'normalized_alignment');
  return { characters: r.alignment.characters.length, end: r.alignment.characterEndTimesSeconds.at(-1) };
});

await check('textToSpeech.streamWithTimestamps', async () => {
  const text = 'Streamed with timestamps.';
  const stream = await client.textToSpeech.streamWithTimestamps(VOICE_ID, { text, modelId: MODEL_ID });
  const audio = [];
  const chars = [];
  let n = 0;
  let last = -1;
  for await (const chunk of stream) {
    n++;
    if (chunk.audioBase64) audio.push(Buffer.from(chunk.audioBase64, 'base64'));
    if (chunk.alignment) {
      assertAlignment(chunk.alignment, undefined, `chunk ${n} alignment`);
      const starts = chunk.alignment.characterStartTimesSeconds;
      if (starts.length) {
        assert(starts[0] >= last, `chunk ${n} starts (${starts[0]}) before the previous chunk (${last})`);
        last = starts.at(-1);
      }
      chars.push(...chunk.alignment.characters);
    }
  }
  assert(n > 0, 'no chunks');
  assertMp3(Buffer.concat(audio), 'stream/with-timestamps audio');
  assert(chars.join('') === text, `streamed characters ${JSON.stringify(chars.join(''))} != input ${JSON.stringify(text)}`);
  return { chunks: n, characters: chars.length };
});

await check('voices.getAll', async () => {
  const r = await client.voices.getAll();
  assert(Array.isArray(r.voices) && r.voices.length > 0, 'no voices');
  const rachel = r.voices.find((v) => v.voiceId === VOICE_ID);
  assert(rachel, `${VOICE_ID} not in /v1/voices`);
  for (const v of r.voices) assert(v.voiceId && v.name, `voice without id or name: ${JSON.stringify(v)}`);
  return { voices: r.voices.length };
});

await check('voices.search', async () => {
  const r = await client.voices.search({ pageSize: 5 });
  assert(Array.isArray(r.voices) && r.voices.length > 0 && r.voices.length <= 5, `${r.voices?.length} voices for page_size 5`);
  assert(typeof r.hasMore === 'boolean', 'has_more missing');
  assert(typeof r.totalCount === 'number' && r.totalCount >= r.voices.length, `total_count ${r.totalCount}`);
  let pages = 1;
  if (r.hasMore) {
    assert(r.nextPageToken, 'has_more without next_page_token');
    const next = await client.voices.search({ pageSize: 5, nextPageToken: r.nextPageToken });
    assert(next.voices.length > 0, 'second page is empty');
    const ids = new Set(r.voices.map((v) => v.voiceId));
    assert(next.voices.every((v) => !ids.has(v.voiceId)), 'second page repeats voices of the first');
    pages++;
  }
  const found = await client.voices.search({ search: 'Rachel' });
  assert(found.voices.some((v) => v.voiceId === VOICE_ID), 'search "Rachel" did not find Rachel');
  return { first: r.voices.length, totalCount: r.totalCount, pages };
});

await check('voices.get', async () => {
  const v = await client.voices.get(VOICE_ID);
  assert(v.voiceId === VOICE_ID, `voice_id ${v.voiceId}`);
  assert(v.name, 'no name');
  return { name: v.name, category: v.category };
});

await check('voices.settings.getDefault', async () => {
  const s = await client.voices.settings.getDefault();
  for (const k of ['stability', 'similarityBoost']) assert(typeof s[k] === 'number', `${k} is ${s[k]}`);
  return s;
});

await check('voices.settings.get', async () => {
  const s = await client.voices.settings.get(VOICE_ID);
  for (const k of ['stability', 'similarityBoost']) assert(typeof s[k] === 'number', `${k} is ${s[k]}`);
  return s;
});

await check('models.list', async () => {
  const models = await client.models.list();
  assert(Array.isArray(models) && models.length > 0, 'no models');
  const m = models.find((x) => x.modelId === MODEL_ID);
  assert(m, `${MODEL_ID} missing`);
  assert(m.canDoTextToSpeech === true, `${MODEL_ID} can_do_text_to_speech ${m.canDoTextToSpeech}`);
  return { models: models.map((x) => x.modelId) };
});

await check('history.list', async () => {
  const r = await client.history.list({ pageSize: 10 });
  assert(Array.isArray(r.history), 'no history array');
  assert(typeof r.hasMore === 'boolean', 'has_more missing');
  assert(historyItemId, 'no history item from convert');
  const item = r.history.find((h) => h.historyItemId === historyItemId);
  assert(item, `history item ${historyItemId} (from convert) not listed`);
  assert(item.text === TEXT, `text ${JSON.stringify(item.text)}`);
  assert(item.voiceId === VOICE_ID, `voice_id ${item.voiceId}`);
  return { items: r.history.length, hasMore: r.hasMore };
});

await check('history.get', async () => {
  assert(historyItemId, 'no history item from convert');
  const h = await client.history.get(historyItemId);
  assert(h.historyItemId === historyItemId, `history_item_id ${h.historyItemId}`);
  assert(h.text === TEXT, `text ${JSON.stringify(h.text)}`);
  assert(h.modelId === MODEL_ID, `model_id ${h.modelId}`);
  assert(
    Math.abs(h.characterCountChangeTo - h.characterCountChangeFrom) === TEXT.length,
    `character count change ${h.characterCountChangeFrom} → ${h.characterCountChangeTo}`,
  );
  return { voiceName: h.voiceName, state: h.state, contentType: h.contentType };
});

await check('history.getAudio', async () => {
  assert(historyItemId, 'no history item from convert');
  const { bytes } = await collect(await client.history.getAudio(historyItemId));
  assertMp3(bytes, 'history audio');
  return { bytes: bytes.length };
});

await check('history.download', async () => {
  assert(historyItemId, 'no history item from convert');
  const { data, rawResponse } = await client.history.download({ historyItemIds: [historyItemId] }).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'history download');
  const disposition = rawResponse.headers.get('content-disposition');
  assert(disposition && /attachment/i.test(disposition) && /\.mp3/i.test(disposition), `content-disposition ${disposition}`);
  return { bytes: bytes.length, disposition };
});

await check('history.delete', async () => {
  assert(historyItemId, 'no history item from convert');
  const r = await client.history.delete(historyItemId);
  assert(r.status === 'ok', `status ${r.status}`);
  try {
    await client.history.get(historyItemId);
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, `get after delete: ${JSON.stringify(describeError(err))}`);
    return r;
  }
  throw new CheckError('history item still readable after delete');
});

await check('GET /v1/user raw JSON has workspace_id (the SDK requires it)', async () => {
  const res = await fetch(`${baseUrl}/v1/user`, { headers: { 'xi-api-key': apiKey } });
  assert(res.ok, `GET /v1/user → ${res.status}`);
  const u = await res.json();
  assert(typeof u.workspace_id === 'string' && u.workspace_id, `workspace_id ${JSON.stringify(u.workspace_id)}`);
  return { workspace_id: u.workspace_id };
});

await check('user.get', async () => {
  const u = await client.user.get();
  assert(u.userId, 'no user_id');
  assert(u.workspaceId, 'no workspace_id');
  assert(u.subscription && typeof u.subscription.characterLimit === 'number', 'no subscription.character_limit');
  return { userId: u.userId, workspaceId: u.workspaceId, tier: u.subscription.tier };
});

await check('user.subscription.get', async () => {
  const s = await client.user.subscription.get();
  assert(s.tier, 'no tier');
  assert(typeof s.characterCount === 'number' && typeof s.characterLimit === 'number', 'no character counts');
  assert(s.characterCount >= TEXT.length, `character_count ${s.characterCount} after generating ${TEXT.length} characters`);
  return { tier: s.tier, characterCount: s.characterCount, characterLimit: s.characterLimit };
});

await check('error: bad API key → 401', async () => {
  const bad = new ElevenLabsClient({ baseUrl, apiKey: 'sk_not_a_real_key', maxRetries: 0 });
  try {
    await bad.user.get();
  } catch (err) {
    assert(err instanceof ElevenLabsError, `not an ElevenLabsError: ${err}`);
    assert(err.statusCode === 401, `statusCode ${err.statusCode}`);
    assert(err.body?.detail?.status, `body ${JSON.stringify(err.body)}`);
    return { statusCode: err.statusCode, status: err.body.detail.status };
  }
  throw new CheckError('no error with a bad key');
});

await check('error: unknown voice → 404 voice_not_found', async () => {
  try {
    await client.textToSpeech.convert('no_such_voice_00000000', { text: 'Hi.', modelId: MODEL_ID });
  } catch (err) {
    assert(err instanceof ElevenLabsError, `not an ElevenLabsError: ${err}`);
    assert(err.statusCode === 404, `statusCode ${err.statusCode}, body ${JSON.stringify(err.body)}`);
    assert(err.body?.detail?.status === 'voice_not_found', `body ${JSON.stringify(err.body)}`);
    return { statusCode: err.statusCode, status: err.body.detail.status };
  }
  throw new CheckError('no error for an unknown voice');
});

await check('error: voices.get unknown → 404', async () => {
  try {
    await client.voices.get('no_such_voice_00000000');
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, JSON.stringify(describeError(err)));
    return { statusCode: err.statusCode, status: err.body?.detail?.status };
  }
  throw new CheckError('no error for an unknown voice');
});

// ── The listening routes: speech to text (sync, stored transcripts, webhook), audio isolation ──

// Real speech for them, made through the SDK: Rachel is a flite voice (slt), whose rendering of
// this sentence pocketsphinx transcribes word for word.
const WALK = 'It is a nice day to go for a walk in the park.';
let walkMp3;
let walkPcm;
await check('textToSpeech.convert: speech to listen to (flite)', async () => {
  walkMp3 = (await collect(await client.textToSpeech.convert(VOICE_ID, { text: WALK, modelId: MODEL_ID, outputFormat: 'mp3_44100_128' }))).bytes;
  assertMp3(walkMp3, 'speech');
  walkPcm = (await collect(await client.textToSpeech.convert(VOICE_ID, { text: WALK, modelId: MODEL_ID, outputFormat: 'pcm_16000' }))).bytes;
  assert(walkPcm.length > 16000 * 2, `pcm_16000: only ${walkPcm.length} bytes`);
  return { mp3: decodeMp3Frames(walkMp3, 'speech'), pcmSeconds: walkPcm.length / 32000 };
});

/**
 * Checks a transcript of WALK as the SDK hands it back (camelCase fields). Most renderings come
 * back word for word; the inaudible watermark makes each one a little different, and about one
 * in twenty loses a word ("park" heard as "art"), so up to two word errors in eleven pass.
 */
function assertWalkTranscript(t, what) {
  assert(typeof t.text === 'string' && wordErrors(WALK, t.text) <= 2, `${what}: text ${JSON.stringify(t.text)}`);
  assert(t.languageCode === 'eng', `${what}: language_code ${t.languageCode}`);
  assert(typeof t.languageProbability === 'number' && t.languageProbability > 0 && t.languageProbability <= 1, `${what}: language_probability ${t.languageProbability}`);
  assert(Array.isArray(t.words), `${what}: no words`);
  const words = t.words.filter((w) => w.type === 'word');
  assert(words.map((w) => wordsOf(w.text).join('')).join(' ') === wordsOf(t.text).join(' '), `${what}: words ${JSON.stringify(words.map((w) => w.text))} are not the text`);
  // The entries in order, words and the spacing between them, spell the text.
  assert(t.words.map((w) => w.text).join('') === t.text, `${what}: the words do not spell the text`);
  let last = 0;
  for (const w of words) {
    assert(typeof w.start === 'number' && typeof w.end === 'number' && w.end > w.start, `${what}: word ${JSON.stringify(w)} has no times`);
    assert(w.start >= last - 1e-6, `${what}: "${w.text}" starts (${w.start}) before the word before it ends (${last})`);
    assert(typeof w.logprob === 'number' && w.logprob <= 0 && Number.isFinite(w.logprob), `${what}: "${w.text}" logprob ${w.logprob}`);
    assert(w.speakerId === 'speaker_0', `${what}: "${w.text}" speaker_id ${w.speakerId} (one speaker, diarized)`);
    last = w.end;
  }
  assert(typeof t.audioDurationSecs === 'number' && last <= t.audioDurationSecs + 0.05, `${what}: last word ends at ${last}, audio_duration_secs ${t.audioDurationSecs}`);
  return words;
}

let transcriptionId;
let transcript;
await check('speechToText.convert: file, word timestamps, diarize, SRT', async () => {
  assert(walkMp3, 'no speech');
  const { data: t, rawResponse } = await client.speechToText.convert({
    file: new File([walkMp3], 'walk-in-the-park.mp3', { type: 'audio/mpeg' }),
    modelId: 'scribe_v1',
    timestampsGranularity: 'word',
    diarize: true,
    additionalFormats: [{ format: 'srt' }, { format: 'srt', includeSpeakers: true, maxCharactersPerLine: 16 }],
  }).withRawResponse();
  assert(rawResponse.status === 200, `status ${rawResponse.status}`);
  const words = assertWalkTranscript(t, 'transcript');
  assert(words.every((w) => w.characters === undefined), 'characters sent although granularity is word');
  const { seconds } = decodeMp3Frames(walkMp3, 'speech');
  assert(Math.abs(t.audioDurationSecs - seconds) < 0.1, `audio_duration_secs ${t.audioDurationSecs}, the file lasts ${seconds.toFixed(3)} s`);
  assert(typeof t.transcriptionId === 'string' && t.transcriptionId, `transcription_id ${t.transcriptionId}`);
  transcriptionId = t.transcriptionId;
  transcript = t;

  assert(Array.isArray(t.additionalFormats) && t.additionalFormats.length === 2, `additional_formats ${JSON.stringify(t.additionalFormats)}`);
  const [srt, custom] = t.additionalFormats;
  assert(srt.requestedFormat === 'srt' && srt.fileExtension === 'srt', `format ${srt.requestedFormat}, extension ${srt.fileExtension}`);
  assert(/subrip|srt/.test(srt.contentType), `content_type ${srt.contentType}`);
  assert(srt.isBase64Encoded === false, 'SRT is base64-encoded');
  // SubRip: numbered cues "HH:MM:SS,mmm --> HH:MM:SS,mmm" whose text is the transcript.
  const cues = srt.content.trim().split(/\n\n+/).map((cue) => cue.split('\n'));
  assert(cues.length >= 1, 'no cues');
  const clock = /^(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)$/;
  const secs = (m, i) => Number(m[i]) * 3600 + Number(m[i + 1]) * 60 + Number(m[i + 2]) + Number(m[i + 3]) / 1000;
  cues.forEach((cue, i) => {
    assert(cue[0] === String(i + 1), `cue ${i + 1} numbered ${cue[0]}`);
    const m = clock.exec(cue[1]);
    assert(m && secs(m, 5) > secs(m, 1), `cue ${i + 1} times ${cue[1]}`);
    assert(cue.length >= 3, `cue ${i + 1} has no text`);
  });
  assert(Math.abs(secs(clock.exec(cues[0][1]), 1) - words[0].start) < 0.002, `first cue starts at ${cues[0][1]}, the first word at ${words[0].start}`);
  const said = cues.map((c) => c.slice(2).join(' ')).join(' ');
  assert(said === t.text, `SRT text ${JSON.stringify(said)}, transcript ${JSON.stringify(t.text)}`);
  assert(!/speaker_0/.test(srt.content), 'default SRT names the speaker (include_speakers defaults to false)');

  // The SDK sends each export's options as written (camelCase): they must still take effect.
  const lines = custom.content.trim().split(/\n\n+/).flatMap((cue) => cue.split('\n').slice(2));
  assert(/speaker_0/.test(custom.content), `includeSpeakers: true, but no speaker in ${JSON.stringify(custom.content)}`);
  assert(lines.every((l) => l.length <= 16 || !l.includes(' ')), `maxCharactersPerLine: 16, but lines ${JSON.stringify(lines)}`);
  return { text: t.text, words: words.length, languageCode: t.languageCode, transcriptionId, cues: cues.length, srt: srt.content };
});

await check('speechToText.transcripts.get', async () => {
  assert(transcriptionId, 'no transcript from speechToText.convert');
  const t = await client.speechToText.transcripts.get(transcriptionId);
  const words = assertWalkTranscript(t, 'stored transcript');
  assert(t.transcriptionId === transcriptionId, `transcription_id ${t.transcriptionId}`);
  assert(t.text === transcript.text, `text ${JSON.stringify(t.text)} != convert's ${JSON.stringify(transcript.text)}`);
  const fresh = transcript.words.filter((w) => w.type === 'word');
  words.forEach((w, i) => {
    assert(w.text === fresh[i].text && w.start === fresh[i].start && w.end === fresh[i].end, `word ${i}: ${JSON.stringify(w)} != ${JSON.stringify(fresh[i])}`);
  });
  return { words: words.length };
});

await check('speechToText.transcripts.delete', async () => {
  assert(transcriptionId, 'no transcript from speechToText.convert');
  const { rawResponse } = await client.speechToText.transcripts.delete(transcriptionId).withRawResponse();
  assert(rawResponse.status === 200, `status ${rawResponse.status}`);
  try {
    await client.speechToText.transcripts.get(transcriptionId);
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, `get after delete: ${JSON.stringify(describeError(err))}`);
    return { statusAfterDelete: err.statusCode };
  }
  throw new CheckError('transcript still readable after delete');
});

await check('speechToText.convert: unknown model → 422 naming model_id', async () => {
  try {
    await client.speechToText.convert({ file: new File([walkMp3], 'a.mp3', { type: 'audio/mpeg' }), modelId: 'no_such_model' });
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, JSON.stringify(describeError(err)));
    assert(JSON.stringify(err.body).includes('model_id'), `body ${JSON.stringify(err.body)}`);
    return { statusCode: err.statusCode };
  }
  throw new CheckError('no error for an unknown model');
});

// Asynchronous transcription: a webhook made and subscribed through the SDK, a receiver here; the
// delivery's signature checked with the SDK's own webhooks.constructEvent.
await check('speechToText.convert webhook: true → signed delivery (webhooks.create, update, constructEvent)', async () => {
  assert(walkMp3, 'no speech');
  const deliveries = [];
  let arrived;
  const delivered = new Promise((resolve) => { arrived = resolve; });
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['elevenlabs-signature'], type: req.headers['content-type'] });
      res.writeHead(200).end();
      arrived();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  let webhookId;
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/hooks/stt`;
    const made = await client.webhooks.create({ settings: { authType: 'hmac', name: 'e2e transcripts', webhookUrl: url } });
    webhookId = made.webhookId;
    assert(webhookId && typeof made.webhookSecret === 'string' && made.webhookSecret, `create: ${JSON.stringify(made)}`);
    await client.webhooks.update(webhookId, { isDisabled: false, name: 'e2e transcripts', events: ['speech_to_text'] });
    const listed = await client.webhooks.list({ includeUsages: true });
    const mine = listed.webhooks.find((w) => w.webhookId === webhookId);
    assert(mine && mine.webhookUrl === url && !mine.isDisabled, `list: ${JSON.stringify(mine)}`);

    const accepted = await client.speechToText.convert({
      file: new File([walkMp3], 'walk.mp3', { type: 'audio/mpeg' }),
      modelId: 'scribe_v1',
      webhook: true,
      diarize: true,
      webhookMetadata: { job: 'e2e-42', batch: 7 },
    });
    assert(typeof accepted.message === 'string' && accepted.message, `message ${accepted.message}`);
    assert(accepted.requestId && accepted.transcriptionId, `accepted ${JSON.stringify(accepted)}`);
    assert(accepted.text === undefined && accepted.words === undefined, 'the webhook answer carries the transcript');

    await Promise.race([delivered, new Promise((_, reject) => setTimeout(() => reject(new CheckError('no delivery within 45 s')), 45000))]);
    const d = deliveries[0];
    assert(d.type?.startsWith('application/json'), `delivery content-type ${d.type}`);
    const event = await client.webhooks.constructEvent(d.body, d.signature, made.webhookSecret);
    assert(event.type === 'speech_to_text_transcription', `type ${event.type}`);
    assert(typeof event.event_timestamp === 'number' && Math.abs(event.event_timestamp - Date.now() / 1000) < 120, `event_timestamp ${event.event_timestamp}`);
    assert(event.data.request_id === accepted.requestId, `request_id ${event.data.request_id}, accepted ${accepted.requestId}`);
    assert(JSON.stringify(event.data.webhook_metadata) === JSON.stringify({ job: 'e2e-42', batch: 7 }), `webhook_metadata ${JSON.stringify(event.data.webhook_metadata)}`);
    const tr = event.data.transcription;
    assert(wordErrors(WALK, tr.text) <= 2, `delivered text ${JSON.stringify(tr.text)}`);
    assert(tr.language_code === 'eng' && tr.words.some((w) => w.type === 'word' && w.speaker_id === 'speaker_0' && w.end > w.start), `delivered transcript ${JSON.stringify(tr).slice(0, 300)}`);
    // A tampered body fails the SDK's check.
    let refused = false;
    try {
      await client.webhooks.constructEvent(d.body.replace('e2e-42', 'e2e-43'), d.signature, made.webhookSecret);
    } catch (err) {
      refused = err instanceof ElevenLabsError;
    }
    assert(refused, 'constructEvent accepted a tampered body');
    // The stored transcript is the delivered one.
    const stored = await client.speechToText.transcripts.get(accepted.transcriptionId);
    assert(stored.text === tr.text, `stored ${JSON.stringify(stored.text)}, delivered ${JSON.stringify(tr.text)}`);
    return { deliveries: deliveries.length, text: tr.text, transcriptionId: accepted.transcriptionId };
  } finally {
    receiver.close();
    if (webhookId) await client.webhooks.delete(webhookId).catch(() => {});
  }
});

let isolatedId;
await check('audioIsolation.convert (mp3 upload)', async () => {
  assert(walkMp3, 'no speech');
  const { data, rawResponse } = await client.audioIsolation.convert({ audio: new File([walkMp3], 'walk.mp3', { type: 'audio/mpeg' }) }).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'isolated audio');
  const out = decodeMp3Frames(bytes, 'isolated audio');
  const src = decodeMp3Frames(walkMp3, 'speech');
  assert(Math.abs(out.seconds - src.seconds) < 0.2, `isolated audio lasts ${out.seconds.toFixed(3)} s, the input ${src.seconds.toFixed(3)} s`);
  isolatedId = rawResponse.headers.get('history-item-id');
  assert(isolatedId, 'no history-item-id header');
  assert(rawResponse.headers.get('content-type')?.startsWith('audio/mpeg'), `content-type ${rawResponse.headers.get('content-type')}`);
  // What was isolated is still the speech.
  const heard = await client.speechToText.convert({ file: new File([bytes], 'isolated.mp3', { type: 'audio/mpeg' }), modelId: 'scribe_v1' });
  assert(wordErrors(WALK, heard.text) <= 3, `the isolated speech transcribes as ${JSON.stringify(heard.text)}`);
  return { bytes: bytes.length, ...out, historyItemId: isolatedId, heard: heard.text };
});

await check('audioIsolation.stream (raw pcm_s16le_16)', async () => {
  assert(walkPcm, 'no speech');
  const stream = await client.audioIsolation.stream({ audio: new Blob([walkPcm]), fileFormat: 'pcm_s16le_16' });
  const { bytes, chunks } = await collect(stream);
  assertMp3(bytes, 'isolated stream');
  const out = decodeMp3Frames(bytes, 'isolated stream');
  const seconds = walkPcm.length / 32000;
  assert(Math.abs(out.seconds - seconds) < 0.2, `isolated stream lasts ${out.seconds.toFixed(3)} s, the input ${seconds.toFixed(3)} s`);
  return { bytes: bytes.length, chunks, ...out };
});

await check('audioIsolation.list and delete', async () => {
  assert(isolatedId, 'no history item from audioIsolation.convert');
  const r = await client.audioIsolation.list({ pageSize: 10 });
  assert(Array.isArray(r.items) && typeof r.hasMore === 'boolean', `list ${JSON.stringify(r).slice(0, 200)}`);
  const item = r.items.find((i) => i.id === isolatedId);
  assert(item, `${isolatedId} not listed`);
  assert(typeof item.createdAtUnix === 'number' && item.format && item.processing === false, `item ${JSON.stringify(item)}`);
  await client.audioIsolation.delete(isolatedId);
  const after = await client.audioIsolation.list({ pageSize: 10 });
  assert(!after.items.some((i) => i.id === isolatedId), 'still listed after delete');
  return { listed: r.items.length, format: item.format, durationSeconds: item.durationSeconds };
});

await check('speechToSpeech.convert and stream (Rachel said in Adam\'s voice)', async () => {
  assert(walkMp3, 'no speech');
  const ADAM = 'pNInz6obpgDQGcFmaJgB';
  const { data, rawResponse } = await client.speechToSpeech
    .convert(ADAM, {
      audio: new File([walkMp3], 'walk.mp3', { type: 'audio/mpeg' }),
      modelId: 'eleven_multilingual_sts_v2',
      voiceSettings: JSON.stringify({ stability: 0.5, similarity_boost: 0.75 }),
      outputFormat: 'mp3_44100_128',
    })
    .withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'converted audio');
  const out = decodeMp3Frames(bytes, 'converted audio');
  const src = decodeMp3Frames(walkMp3, 'speech');
  assert(Math.abs(out.seconds - src.seconds) < 0.2, `converted audio lasts ${out.seconds.toFixed(3)} s, the input ${src.seconds.toFixed(3)} s`);
  const historyItemId = rawResponse.headers.get('history-item-id');
  assert(historyItemId && rawResponse.headers.get('request-id'), 'no history-item-id or request-id header');
  // The words are kept.
  const heard = await client.speechToText.convert({ file: new File([bytes], 'converted.mp3', { type: 'audio/mpeg' }), modelId: 'scribe_v1' });
  assert(wordErrors(WALK, heard.text) <= 3, `the converted speech transcribes as ${JSON.stringify(heard.text)}`);
  const listed = await client.history.list({ source: 'STS', pageSize: 10 });
  const item = listed.history.find((h) => h.historyItemId === historyItemId);
  assert(item && item.source === 'STS' && item.voiceId === ADAM, `STS history ${JSON.stringify(listed.history).slice(0, 300)}`);
  const stream = await client.speechToSpeech.stream(ADAM, {
    audio: new File([walkMp3], 'walk.mp3', { type: 'audio/mpeg' }),
    modelId: 'eleven_english_sts_v2',
    outputFormat: 'mp3_22050_32',
  });
  const streamed = await collect(stream);
  assertMp3(streamed.bytes, 'converted stream');
  return { bytes: bytes.length, ...out, historyItemId, heard: heard.text, streamedChunks: streamed.chunks };
});

await check('speechToText.realtime: stream PCM, partials and a committed transcript', async () => {
  const spoken = 'The birch canoe slid on the smooth planks.';
  // Josh (flite kal16) speaks the same samples every time; Rachel's voice (slt) carries random
  // excitation noise, and once in a while the recogniser heard one word of seven in it.
  const josh = 'TxGEqnHWrfWFTfGW9XjX';
  const tts = await client.textToSpeech.convert(josh, { text: spoken, modelId: MODEL_ID, outputFormat: 'pcm_16000' });
  const { bytes: pcm } = await collect(tts);
  const connection = await client.speechToText.realtime.connect({
    modelId: 'scribe_v2_realtime', audioFormat: AudioFormat.PCM_16000, sampleRate: 16000, includeTimestamps: true,
  });
  const seen = { partials: 0 };
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CheckError('no committed transcript within 30 s')), 30000);
    connection.on(RealtimeEvents.PARTIAL_TRANSCRIPT, () => { seen.partials++; });
    connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT_WITH_TIMESTAMPS, (m) => { clearTimeout(timer); resolve(m); });
    connection.on(RealtimeEvents.ERROR, (e) => { clearTimeout(timer); reject(new CheckError(`error: ${JSON.stringify(e.error ?? String(e))}`)); });
  });
  const started = new Promise((resolve) => connection.on(RealtimeEvents.SESSION_STARTED, resolve));
  const session = await started;
  assert(session.session_id && session.config?.sample_rate === 16000, `session_started ${JSON.stringify(session)}`);
  for (let at = 0; at < pcm.length; at += 6400) { // 200 ms chunks
    connection.send({ audioBase64: pcm.subarray(at, at + 6400).toString('base64') });
  }
  connection.commit();
  const committed = await done;
  connection.close();
  const words = committed.text.toLowerCase().match(/[a-z']+/g) ?? [];
  // Recognition quality is measured in the Go test; here the protocol: a transcript of the speech.
  const heard = ['the', 'birch', 'canoe', 'slid', 'on', 'smooth', 'planks'].filter((w) => words.includes(w)).length;
  assert(words.length >= 4 && heard >= 2, `committed ${JSON.stringify(committed.text)}`);
  assert(Array.isArray(committed.words) && committed.words.some((w) => w.type === 'word' && w.end > w.start), 'no timed words');
  return { text: committed.text, partials: seen.partials, words: committed.words.length };
});

// Text to dialogue runs last: its flite syntheses would otherwise move the random excitation
// the listening checks above hear.
const DIALOGUE = [
  { text: 'Did you hear the news?', voiceId: VOICE_ID },
  { text: '[laughs] Yes, everyone has.', voiceId: 'pNInz6obpgDQGcFmaJgB' }, // Adam
];
const dialogueText = DIALOGUE.map((l) => l.text).join(' ');

function assertSegments(segments, what) {
  assert(Array.isArray(segments) && segments.length === DIALOGUE.length, `${what}: ${segments?.length} voice segments`);
  segments.forEach((s, i) => {
    assert(s.voiceId === DIALOGUE[i].voiceId && s.dialogueInputIndex === i, `${what} segment ${i}: ${JSON.stringify(s)}`);
    assert(s.endTimeSeconds > s.startTimeSeconds && s.characterEndIndex > s.characterStartIndex, `${what} segment ${i} is empty`);
  });
}

await check('textToDialogue.convert', async () => {
  const { data, rawResponse } = await client.textToDialogue.convert({ inputs: DIALOGUE, seed: 1 }).withRawResponse();
  const { bytes } = await collect(data);
  assertMp3(bytes, 'dialogue audio');
  assert(rawResponse.headers.get('history-item-id'), 'no history-item-id header');
  return { bytes: bytes.length };
});

await check('textToDialogue.stream', async () => {
  const { bytes, chunks } = await collect(await client.textToDialogue.stream({ inputs: DIALOGUE }));
  assertMp3(bytes, 'streamed dialogue audio');
  return { bytes: bytes.length, chunks };
});

await check('textToDialogue.convertWithTimestamps', async () => {
  const r = await client.textToDialogue.convertWithTimestamps({ inputs: DIALOGUE });
  assertMp3(Buffer.from(r.audioBase64, 'base64'), 'dialogue with-timestamps audio');
  assertAlignment(r.alignment, dialogueText, 'dialogue alignment');
  assertSegments(r.voiceSegments, 'with-timestamps');
  return { segments: r.voiceSegments.length, end: r.voiceSegments.at(-1).endTimeSeconds };
});

await check('textToDialogue.streamWithTimestamps', async () => {
  const stream = await client.textToDialogue.streamWithTimestamps({ inputs: DIALOGUE });
  const audio = [];
  const chars = [];
  const segments = [];
  for await (const chunk of stream) {
    if (chunk.audioBase64) audio.push(Buffer.from(chunk.audioBase64, 'base64'));
    if (chunk.alignment) chars.push(...chunk.alignment.characters);
    segments.push(...(chunk.voiceSegments ?? []));
  }
  assertMp3(Buffer.concat(audio), 'streamed dialogue audio');
  assert(chars.join('') === dialogueText, `streamed characters ${JSON.stringify(chars.join(''))}`);
  assertSegments(segments, 'stream/with-timestamps');
  return { segments: segments.length };
});

finish('sdk');
