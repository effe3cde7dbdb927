import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import type { HistoryItem } from '../api';
import { FeedbackDialog, shouldOpenFeedbackDialog, validateFeedbackText } from './FeedbackDialog';

afterEach(() => vi.unstubAllGlobals());

const item: HistoryItem = {
  history_item_id: 'h1',
  text: 'Hello there',
  voice_name: 'Aria',
  date_unix: 1_700_000_000,
  character_count_change_from: 0,
  character_count_change_to: 11,
  content_type: 'audio/mpeg',
  state: 'created',
};

function renderDialog(thumbsUp: boolean, overrides: Partial<HistoryItem> = {}) {
  const onOpenChange = vi.fn();
  const onSubmitted = vi.fn();
  renderWithProviders(
    <FeedbackDialog item={{ ...item, ...overrides }} thumbsUp={thumbsUp} open onOpenChange={onOpenChange} onSubmitted={onSubmitted} />,
  );
  return { onOpenChange, onSubmitted };
}

describe('feedback rules', () => {
  it('text rule: empty ok, 1–19 refused, 20 ok', () => {
    expect(validateFeedbackText('')).toBeNull();
    expect(validateFeedbackText('a')).toBe('Feedback must be at least 20 characters.');
    expect(validateFeedbackText('x'.repeat(19))).toBe('Feedback must be at least 20 characters.');
    expect(validateFeedbackText('x'.repeat(20))).toBeNull();
    expect(validateFeedbackText('x'.repeat(200))).toBeNull();
    expect(validateFeedbackText('x'.repeat(201))).not.toBeNull();
  });

  it('dialog opens after thumbs-up only for text up to 400 characters; always after thumbs-down', () => {
    expect(shouldOpenFeedbackDialog(true, 'x'.repeat(400))).toBe(true);
    expect(shouldOpenFeedbackDialog(true, 'x'.repeat(401))).toBe(false);
    expect(shouldOpenFeedbackDialog(false, 'x'.repeat(5000))).toBe(true);
  });
});

describe('FeedbackDialog', () => {
  it('shows an n / 200 counter and caps input at 200 characters', async () => {
    renderDialog(true);
    const text = screen.getByLabelText('Feedback');
    expect(screen.getByText('0 / 200')).toBeInTheDocument();
    fireEvent.change(text, { target: { value: 'abc' } });
    expect(screen.getByText('3 / 200')).toBeInTheDocument();
    fireEvent.change(text, { target: { value: 'y'.repeat(250) } });
    expect(text).toHaveValue('y'.repeat(200));
    expect(screen.getByText('200 / 200')).toBeInTheDocument();
  });

  it('refuses 1–19 characters with a message and sends nothing', async () => {
    const { fn } = mockFetch({});
    const user = userEvent.setup();
    renderDialog(true);
    await user.type(screen.getByLabelText('Feedback'), 'too short');
    await user.click(screen.getByRole('button', { name: 'Submit feedback' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Feedback must be at least 20 characters.');
    expect(fn).not.toHaveBeenCalled();
  });

  it('positive feedback has no checkboxes; submits thumbs_up with text', async () => {
    const { calls } = mockFetch({ 'POST /v1/history/h1/feedback': () => jsonResponse({ status: 'ok' }) });
    const user = userEvent.setup();
    const { onOpenChange, onSubmitted } = renderDialog(true);
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Feedback'), 'A lovely and natural read, thanks');
    await user.click(screen.getByRole('button', { name: 'Submit feedback' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls[0]!.body).toEqual({
      thumbs_up: true,
      feedback: 'A lovely and natural read, thanks',
      emotions: false,
      inaccurate_clone: false,
      glitches: false,
      audio_quality: false,
      other: false,
    });
    expect(onSubmitted).toHaveBeenCalled();
  });

  it('negative feedback has five checkboxes and sends them; empty text is allowed', async () => {
    const { calls } = mockFetch({ 'POST /v1/history/h1/feedback': () => jsonResponse({ status: 'ok' }) });
    const user = userEvent.setup();
    const { onOpenChange } = renderDialog(false);
    expect(screen.getAllByRole('checkbox')).toHaveLength(5);
    for (const label of ['Emotions', 'Inaccurate clone', 'Glitches', 'Audio quality', 'Other']) {
      expect(screen.getByLabelText(label)).toBeInTheDocument();
    }
    await user.click(screen.getByLabelText('Glitches'));
    await user.click(screen.getByLabelText('Audio quality'));
    await user.click(screen.getByRole('button', { name: 'Submit feedback' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls[0]!.body).toEqual({
      thumbs_up: false,
      feedback: null, // the document's "no words"
      emotions: false,
      inaccurate_clone: false,
      glitches: true,
      audio_quality: true,
      other: false,
    });
  });

  it('shows the server 400 message', async () => {
    mockFetch({
      'POST /v1/history/h1/feedback': () =>
        jsonResponse(
          { detail: { status: 'feedback_reviewed', message: 'This feedback cannot be changed as it was already reviewed.' } },
          400,
        ),
    });
    const user = userEvent.setup();
    renderDialog(false);
    await user.click(screen.getByRole('button', { name: 'Submit feedback' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This feedback cannot be changed as it was already reviewed.');
  });

  it('reviewed feedback cannot be changed', () => {
    renderDialog(true, {
      feedback: {
        thumbs_up: true,
        feedback: '',
        emotions: false,
        inaccurate_clone: false,
        glitches: false,
        audio_quality: false,
        other: false,
        review_status: 'reviewed',
      },
    });
    expect(screen.getByText('This feedback cannot be changed as it was already reviewed.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Submit feedback' })).toBeDisabled();
  });
});
