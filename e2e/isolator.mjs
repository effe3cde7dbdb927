// The voice isolator in headless Chromium: sign in → Voice Isolator from the sidebar → choose a
// file of noisy speech → upload and isolation → the original and the isolated voice, each with
// its waveform drawn on a canvas; the isolated audio is as long as the original and its noise
// floor far lower → download the result (an mp3) → the history lists it; it plays there → record
// two seconds from Chromium's fake microphone → "Stop and isolate" → the recording's result, first
// in the history → delete the upload after confirming → gone from the page and from the API.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… SPEECH_FILE=noisy.wav node e2e/isolator.mjs
//
// Normally run by isolator_test.go, which makes SPEECH_FILE. Screenshot: screenshots/voice-isolator.png.
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const speechFile = env('SPEECH_FILE');
const title = basename(speechFile, extname(speechFile));

/**
 * In the page: decodes the before and after players' audio (their blob: URLs) with Web Audio at
 * 16 kHz and measures each one's length and noise floor (the RMS of its quietest tenth of 20 ms
 * frames, in dBFS).
 */
async function measure(page) {
  return page.evaluate(async () => {
    const src = (id) => document.querySelector(`[data-testid="${id}-audio"]`).src;
    const stats = async (url) => {
      const data = await (await fetch(url)).arrayBuffer();
      const buf = await new OfflineAudioContext(1, 1, 16000).decodeAudioData(data);
      const x = buf.getChannelData(0);
      const frame = Math.round(buf.sampleRate * 0.02);
      const rms = [];
      for (let i = 0; i + frame <= x.length; i += frame) {
        let s = 0;
        for (let j = i; j < i + frame; j++) s += x[j] * x[j];
        rms.push(Math.sqrt(s / frame));
      }
      rms.sort((a, b) => a - b);
      const quiet = rms.slice(0, Math.max(1, Math.floor(rms.length / 10)));
      const floor = quiet.reduce((a, b) => a + b, 0) / quiet.length;
      return { seconds: buf.duration, floorDb: 20 * Math.log10(floor + 1e-9) };
    };
    return { before: await stats(src('isolator-before')), after: await stats(src('isolator-after')) };
  });
}

/** Waits until a player's waveform is drawn: its canvas exists and the "Drawing…" note is gone. */
async function waveformDrawn(page, testId) {
  const player = page.getByTestId(testId);
  await player.locator('canvas').first().waitFor({ state: 'attached' });
  await player.getByTestId('waveform-status').waitFor({ state: 'detached' });
  const drawn = await player.locator('canvas').first().evaluate((c) => c.width > 0 && c.height > 0);
  assert(drawn, `${testId}: the waveform canvas is empty`);
}

await run(
  'isolator',
  async ({ newPage, step, shot }) => {
    const page = await newPage('user');
    const history = page.getByRole('list', { name: 'Isolation history' });

    await step('sign in and open Voice Isolator from the sidebar', page, async () => {
      await page.goto('/app/sign-in');
      await fillSignIn(page, email, password);
      await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
      await finishOnboarding(page);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voice Isolator' }).click();
      await page.waitForURL('**/app/voice-isolator');
      await page.getByRole('heading', { name: 'Voice Isolator' }).waitFor();
      await page.getByText('No isolations yet').waitFor();
      assert(await page.getByRole('button', { name: 'Record' }).isVisible(), 'no Record button though Chromium can record');
    });

    await step('choose noisy speech: upload, isolation, the result player', page, async () => {
      const answer = page.waitForResponse((r) => r.url().endsWith('/v1/audio-isolation') && r.request().method() === 'POST', {
        timeout: 30_000,
      });
      await page.getByTestId('isolator-file').setInputFiles(speechFile);
      // The original plays at once, while the server works.
      await page.getByTestId('isolator-before').waitFor();
      const res = await answer;
      assert(res.status() === 200, `POST /v1/audio-isolation → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
      assert(res.headers()['content-type'] === 'audio/mpeg', `content type ${res.headers()['content-type']}`);
      assert(res.headers()['history-item-id'], 'no history-item-id header');
      await page.getByTestId('isolator-after').waitFor({ timeout: 30_000 });
      // The charge shows, and the sidebar's credits follow it.
      const cost = (await page.getByTestId('isolator-cost').textContent()).match(/Charged ([\d,]+) credits/)?.[1];
      assert(cost === res.headers()['character-cost'], `cost shown ${cost}, charged ${res.headers()['character-cost']}`);
      await page.getByText(`${cost} / 10,000`).waitFor();
    });

    await step('both players draw their waveforms; the noise floor drops, the length stays', page, async () => {
      await waveformDrawn(page, 'isolator-before');
      await waveformDrawn(page, 'isolator-after');
      const m = await measure(page);
      assert(Math.abs(m.after.seconds - m.before.seconds) < 0.2, `lengths differ: ${JSON.stringify(m)}`);
      assert(m.after.floorDb < m.before.floorDb - 10, `the noise floor did not drop by 10 dB: ${JSON.stringify(m)}`);
      await page.getByTestId('isolator-after-audio').evaluate((a) => a.play());
      await page.waitForFunction(() => document.querySelector('[data-testid="isolator-after-audio"]').currentTime > 0.2);
      await shot(page, 'voice-isolator');
      return m;
    });

    await step('download the isolated voice', page, async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('isolator-download').click()]);
      assert(download.suggestedFilename() === `${title}_isolated.mp3`, `download name ${download.suggestedFilename()}`);
      const bytes = readFileSync(await download.path());
      const mp3 = (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0);
      assert(bytes.length > 10_000 && mp3, `download: ${bytes.length} bytes, starts ${bytes.subarray(0, 4).toString('hex')}`);
    });

    await step('the history lists the isolation; it plays there', page, async () => {
      const row = history.getByTestId('isolator-history-item').filter({ hasText: title });
      await row.waitFor();
      await row.getByRole('button', { name: `Play ${title}` }).click();
      await page.getByTestId('isolator-history-player').waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="isolator-history-player-audio"]')?.currentTime > 0.2);
      const href = await row.getByRole('link', { name: `Download ${title}` }).getAttribute('href');
      const audio = await page.request.get(href);
      assert(audio.status() === 200 && audio.headers()['content-type'] === 'audio/mpeg', `GET ${href} → ${audio.status()}`);
      await row.getByRole('button', { name: `Hide the player of ${title}` }).click();
    });

    await step('record from the microphone, stop: the recording is isolated', page, async () => {
      await page.getByRole('button', { name: 'Record' }).click();
      await page.getByTestId('isolator-recording').getByText(/Recording 0:0[2-9]/).waitFor();
      const answer = page.waitForResponse((r) => r.url().endsWith('/v1/audio-isolation') && r.request().method() === 'POST', {
        timeout: 30_000,
      });
      await page.getByRole('button', { name: 'Stop and isolate' }).click();
      const res = await answer;
      assert(res.status() === 200, `POST /v1/audio-isolation (recording) → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
      await page.getByTestId('isolator-after').waitFor();
      await waveformDrawn(page, 'isolator-before');
      // MediaRecorder's WebM carries no duration: the player takes the decoded one.
      const max = Number(await page.getByRole('slider', { name: 'Seek in Original' }).getAttribute('max'));
      assert(max > 1.5 && max < 10, `the recording's seek range is ${max} s`);
      const first = history.getByTestId('isolator-history-item').first();
      await first.filter({ hasText: /Recording \d{4}-\d\d-\d\d/ }).waitFor();
      assert((await history.getByTestId('isolator-history-item').count()) === 2, 'the history does not hold two isolations');
    });

    await step('delete the upload after confirming', page, async () => {
      const row = history.getByTestId('isolator-history-item').filter({ hasText: title });
      const href = await row.getByRole('link', { name: `Download ${title}` }).getAttribute('href');
      await row.getByRole('button', { name: `Delete ${title}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this isolation?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      await row.waitFor({ state: 'detached' });
      assert((await history.getByTestId('isolator-history-item').count()) === 1, 'the other isolation went too');
      const list = await (await page.request.get('/v1/audio-isolation/history')).json();
      assert(list.items.length === 1 && list.items[0].title.startsWith('Recording '), `history: ${JSON.stringify(list.items)}`);
      const gone = await page.request.get(href);
      assert(gone.status() === 404, `the deleted audio answers ${gone.status()}`);
    });
  },
  // A microphone that plays a beep, allowed without asking.
  { args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'] },
);
