import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/utils';
import { AudioHistoryList, type AudioHistoryPage } from './AudioHistoryList';

interface Item {
  id: string;
  name: string;
}

function setup(pages: Record<number, AudioHistoryPage<Item>>) {
  const list = vi.fn(async (page: number) => pages[page]);
  const remove = vi.fn(async () => undefined);
  renderWithProviders(
    <AudioHistoryList<Item>
      name="thing"
      queryKey={['things']}
      list={list}
      remove={remove}
      pageSize={1}
      errorMessage={() => 'failed'}
      idOf={(i) => i.id}
      titleOf={(i) => i.name}
      details={(i) => `details of ${i.name}`}
      audioUrl={(i) => `/audio/${i.id}`}
      fileName={(i) => `${i.name}.mp3`}
      player={(_, url, title) => <audio aria-label={`Player of ${title}`} src={url} />}
      noun="thing"
      loadingText="Loading…"
      emptyText="Nothing yet."
      listLabel="Thing history"
    />,
  );
  return { list, remove };
}

describe('AudioHistoryList', () => {
  it('pages, plays, downloads and deletes after a confirmation', async () => {
    const { list, remove } = setup({
      1: { items: [{ id: 'a', name: 'First' }], has_more: true },
      2: { items: [{ id: 'b', name: 'Second' }], has_more: false },
    });
    const user = userEvent.setup();
    expect(await screen.findByText('details of First')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Download First' })).toHaveAttribute('download', 'First.mp3');

    await user.click(screen.getByRole('button', { name: 'Load 1 more' }));
    expect(await screen.findByText('Second')).toBeInTheDocument();
    expect(list).toHaveBeenCalledWith(2);
    expect(screen.queryByRole('button', { name: 'Load 1 more' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Play Second' }));
    expect(screen.getByLabelText('Player of Second')).toHaveAttribute('src', '/audio/b');
    await user.click(screen.getByRole('button', { name: 'Hide the player of Second' }));
    expect(screen.queryByLabelText('Player of Second')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Delete First' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Delete this thing?')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(remove).toHaveBeenCalledWith({ id: 'a', name: 'First' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('says when there is nothing', async () => {
    setup({ 1: { items: [], has_more: false } });
    expect(await screen.findByText('Nothing yet.')).toBeInTheDocument();
  });
});
