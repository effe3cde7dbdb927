// The text to speech page at 1280×800, a common laptop window, for a new user: on first load the
// "Get started" card covers neither the character counter nor Generate; after the first
// generation the bottom player covers neither Generate nor the output format. "Covers" is
// checked twice: the boxes do not intersect, and the topmost element at the control's centre is
// the control itself (so no other layer sits over it either).
//
//   USER_EMAIL, USER_PASSWORD (a signed-up, verified account that has not answered the survey)
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const VIEWPORT = { width: 1280, height: 800 };

const intersects = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The control's box, after asserting it is in the window and on top at its centre. */
async function unobscured(page, locator, what) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  assert(box, `${what}: not rendered`);
  assert(box.y >= 0 && box.y + box.height <= VIEWPORT.height && box.x + box.width <= VIEWPORT.width, `${what}: outside the window ${JSON.stringify(box)}`);
  const onTop = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit === el || el.contains(hit) ? null : (hit?.outerHTML ?? 'nothing').slice(0, 160);
  });
  assert(onTop === null, `${what} is covered at its centre by ${onTop}`);
  return box;
}

await run('layout', async ({ newPage, step, shot }) => {
  const page = await newPage('new user', { viewport: VIEWPORT });
  const generate = page.getByRole('button', { name: 'Generate speech' });
  const counter = page.getByTestId('character-count');

  await step('sign in and answer the survey: the checklist starts', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    assert(await finishOnboarding(page), 'a new account was not shown the onboarding survey');
    if (!new URL(page.url()).pathname.endsWith('/text-to-speech')) await page.goto('/app/speech-synthesis/text-to-speech');
    await page.getByRole('heading', { name: 'Text to Speech' }).waitFor();
  });

  await step('first load: the Get started card covers neither the counter nor Generate', page, async () => {
    const card = page.getByRole('region', { name: 'Get started' });
    await card.waitFor();
    const cardBox = await card.boundingBox();
    const boxes = { counter: await unobscured(page, counter, 'character counter'), generate: await unobscured(page, generate, 'Generate') };
    for (const [name, box] of Object.entries(boxes)) {
      assert(!intersects(cardBox, box), `Get started ${JSON.stringify(cardBox)} overlaps the ${name} ${JSON.stringify(box)}`);
    }
    await shot(page, 'layout-get-started');
    return { card: cardBox, ...boxes };
  });

  await step('after the first generation the player covers neither Generate nor the output format', page, async () => {
    await page.getByLabel('Text', { exact: true }).fill('A short line, to put the player on the screen.');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST' && /\/v1\/text-to-speech\//.test(r.url()));
    await generate.click();
    assert((await answer).status() === 200, 'the generation failed');
    const player = page.getByTestId('player');
    await player.waitFor();
    await page.waitForFunction(() => {
      // The page has made room for the player (GlobalPlayer sets --player-offset).
      const v = getComputedStyle(document.documentElement).getPropertyValue('--player-offset').trim();
      return v !== '' && v !== '0px';
    });
    const playerBox = await player.boundingBox();
    assert(playerBox && playerBox.y + playerBox.height <= VIEWPORT.height + 1, `player box ${JSON.stringify(playerBox)}`);
    const boxes = {
      generate: await unobscured(page, generate, 'Generate'),
      outputFormat: await unobscured(page, page.getByLabel('Output format'), 'output format'),
    };
    for (const [name, box] of Object.entries(boxes)) {
      assert(!intersects(playerBox, box), `the player ${JSON.stringify(playerBox)} overlaps ${name} ${JSON.stringify(box)}`);
    }
    await shot(page, 'layout-player');
    return { player: playerBox, ...boxes };
  });
});
