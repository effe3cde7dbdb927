// Speech to speech in headless Chromium: sign in → Speech to Speech from the sidebar → choose a
// recording (Rachel reading two Harvard sentences) → pick Adam → Convert → the converted voice
// plays (its length is the recording's) → download it (an mp3) → the history lists it (source STS)
// and plays it there.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… SPEECH_FILE=speech.wav node e2e/sts.mjs
//
// Normally run by sts_test.go, which makes SPEECH_FILE. Screenshot: screenshots/speech-to-speech.png.
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const speechFile = env('SPEECH_FILE');
const title = basename(speechFile, extname(speechFile));
const ADAM = 'pNInz6obpgDQGcFmaJgB';

/** In the page: the length in seconds of the audio of a player (its blob: or history URL). */
async function seconds(page, testId) {
  return page.evaluate(async (id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    const data = await (await fetch(el.src)).arrayBuffer();
    const buf = await new OfflineAudioContext(1, 1, 16000).decodeAudioData(data);
    return buf.duration;
  }, testId);
}

await run('speech-to-speech', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open Speech to Speech from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Speech to Speech' }).click();
    await page.waitForURL('**/app/speech-synthesis/speech-to-speech');
    await page.getByRole('heading', { name: 'Speech to Speech' }).waitFor();
    await page.getByText('No conversions yet.').waitFor();
  });

  await step('choose the recording, pick Adam, convert: the converted voice plays', page, async () => {
    await page.getByTestId('sts-file').setInputFiles(speechFile);
    await page.getByTestId('sts-source').waitFor();
    await page.getByTestId('sts-voice').selectOption(ADAM);
    const answer = page.waitForResponse((r) => r.url().includes(`/v1/speech-to-speech/${ADAM}`) && r.request().method() === 'POST', {
      timeout: 60_000,
    });
    await page.getByTestId('sts-convert').click();
    const res = await answer;
    assert(res.status() === 200, `POST /v1/speech-to-speech → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    assert(res.headers()['content-type'] === 'audio/mpeg', `content type ${res.headers()['content-type']}`);
    assert(res.headers()['history-item-id'], 'no history-item-id header');
    await page.getByTestId('sts-result').waitFor();
    const before = await seconds(page, 'sts-source');
    const after = await seconds(page, 'sts-result');
    assert(Math.abs(after - before) < 0.2, `converted ${after.toFixed(3)} s, recording ${before.toFixed(3)} s`);
    await page.getByTestId('sts-result').evaluate((a) => a.play());
    await page.waitForFunction(() => document.querySelector('[data-testid="sts-result"]').currentTime > 0.2);
    const cost = (await page.getByTestId('sts-cost').textContent()).match(/Charged ([\d,]+) credits/)?.[1];
    assert(cost === res.headers()['character-cost'], `cost shown ${cost}, charged ${res.headers()['character-cost']}`);
    await shot(page, 'speech-to-speech');
    return { before, after, cost };
  });

  await step('download the converted voice', page, async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('sts-download').click()]);
    assert(download.suggestedFilename() === `${title.replace(/\s+/g, '_')}_Adam.mp3`, `download name ${download.suggestedFilename()}`);
    const bytes = readFileSync(await download.path());
    const mp3 = (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0);
    assert(bytes.length > 10_000 && mp3, `download: ${bytes.length} bytes, starts ${bytes.subarray(0, 4).toString('hex')}`);
  });

  await step('the history lists the conversion; it plays there', page, async () => {
    const list = page.getByTestId('sts-history');
    await list.getByText(title).waitFor();
    const player = list.getByLabel(`Play ${title}`);
    await player.evaluate((a) => a.play());
    await page.waitForFunction((t) => document.querySelector(`[aria-label="Play ${t}"]`)?.currentTime > 0.2, title);
    const h = await (await page.request.get('/v1/history?source=STS')).json();
    assert(h.history.length === 1 && h.history[0].source === 'STS' && h.history[0].voice_id === ADAM, `history: ${JSON.stringify(h.history)}`);
  });
});
