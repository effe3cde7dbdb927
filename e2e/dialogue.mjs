// Text to dialogue in headless Chromium: sign in → the text-to-speech page → Dialogue mode → two
// lines (Rachel and Adam, one with a [laughs] tag) and a third added, moved up and removed →
// Generate dialogue → the global player plays it → the Download button saves the audio → the
// history shows the item with its lines, tags hidden until "Hide tags" is unticked.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… node e2e/dialogue.mjs
//
// Normally run by dialogue_test.go. Screenshot: screenshots/text-to-dialogue.png.
import { readFileSync } from 'node:fs';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const ADAM = 'pNInz6obpgDQGcFmaJgB';
const LINE1 = 'Good morning! [laughs] Did you sleep well?';
const LINE2 = 'Not really, the neighbours played music all night.';

await run('text-to-dialogue', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in; the text-to-speech page switches to Dialogue', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.goto('/app/speech-synthesis/text-to-speech');
    await page.getByRole('radio', { name: 'Dialogue' }).click();
    await page.getByLabel('Voice of line 2').waitFor();
  });

  await step('write two lines, add a third, move it up and remove it', page, async () => {
    await page.getByLabel('Voice of line 1').selectOption(RACHEL);
    await page.getByLabel('Text of line 1').fill(LINE1);
    await page.getByLabel('Voice of line 2').selectOption(ADAM);
    await page.getByLabel('Text of line 2').fill(LINE2);
    await page.getByRole('button', { name: 'Add line' }).click();
    await page.getByLabel('Text of line 3').fill('A third line.');
    await page.getByRole('button', { name: 'Move line 3 up' }).click();
    assert((await page.getByLabel('Text of line 2').inputValue()) === 'A third line.', 'line 3 did not move up');
    await page.getByRole('button', { name: 'Remove line 2' }).click();
    assert((await page.getByTestId('dialogue-line').count()) === 2, 'the line was not removed');
    const count = await page.getByTestId('dialogue-character-count').textContent();
    assert(count.startsWith(`${[...LINE1].length + [...LINE2].length} / 3,000`), `count ${count}`);
  });

  const generated = await step('generate: the global player plays the dialogue', page, async () => {
    const answer = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/v1/text-to-dialogue'), { timeout: 60_000 });
    await page.getByRole('button', { name: 'Generate dialogue' }).click();
    const res = await answer;
    assert(res.status() === 200, `POST /v1/text-to-dialogue → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const historyItemId = res.headers()['history-item-id'];
    assert(historyItemId, 'no history-item-id header');
    await page.waitForFunction(() => document.querySelector('[data-testid="player"]')?.getAttribute('data-state') === 'playing');
    const audio = page.getByTestId('player-audio');
    await page.waitForFunction(() => document.querySelector('[data-testid="player-audio"]')?.currentTime > 0.3, null, { timeout: 10_000 });
    const duration = await audio.evaluate((a) => a.duration);
    assert(duration > 3, `the dialogue lasts ${duration} s`);
    await shot(page, 'text-to-dialogue');
    return { historyItemId, duration };
  });

  await step('download the dialogue', page, async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).first().click()]);
    const bytes = readFileSync(await download.path());
    const mp3 = (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0);
    assert(/^dialogue-.*\.mp3$/.test(download.suggestedFilename()) && mp3 && bytes.length > 10_000, `download ${download.suggestedFilename()}, ${bytes.length} bytes`);
  });

  await step('the history shows the dialogue with its lines, tags hidden by default', page, async () => {
    await page.getByRole('tab', { name: 'history' }).click();
    const row = page.getByTestId('history-item').filter({ has: page.getByTestId('dialogue-lines') }).first();
    await row.waitFor();
    const lines = row.getByTestId('dialogue-lines');
    let text = await lines.textContent();
    assert(text.includes('Rachel: Good morning! Did you sleep well?') && text.includes(`Adam: ${LINE2}`), `lines: ${text}`);
    await row.getByLabel('Hide tags').uncheck();
    text = await lines.textContent();
    assert(text.includes(`Rachel: ${LINE1}`), `lines with tags: ${text}`);
    const item = await (await page.request.get(`/v1/history/${generated.historyItemId}`)).json();
    assert(item.dialogue?.length === 2 && item.dialogue[1].voice_id === ADAM && item.text === '', `history item: ${JSON.stringify(item).slice(0, 300)}`);
  });
});
