package tts

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"time"
	"unicode/utf8"

	"timbre/internal/account"
	"timbre/internal/metering"
	"timbre/internal/store"
)

// Begin reserves the job's cost in the metering ledger and, when logging, adds its history row
// in the same transaction.
func (s *Service) Begin(ctx context.Context, j *Job) error {
	if j.Logging {
		j.HistoryID = store.NewID()
	}
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		r, err := metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: j.WorkspaceID, UserID: j.UserID, APIKeyID: j.APIKeyID, VoiceID: j.Voice.ID, ModelID: j.Model.ID,
			HistoryID: j.HistoryID, Product: metering.TTS, Kind: metering.Characters,
			Units: int64(utf8.RuneCountInString(j.Text)), Credits: j.Cost, Allowance: j.tier.CharacterLimit,
		}, s.now())
		if err != nil {
			return metering.QuotaAPIError(err)
		}
		j.reservation, j.CharFrom, j.CharTo = r, r.From, r.To
		if !j.Logging {
			return nil
		}
		settings, _ := json.Marshal(j.Settings)
		return tx.InsertHistory(ctx, &store.HistoryItem{
			ID: j.HistoryID, WorkspaceID: j.WorkspaceID, UserID: j.UserID, RequestID: j.RequestID,
			VoiceID: j.Voice.ID, VoiceName: j.Voice.Name, VoiceCategory: j.Voice.Category, ModelID: j.Model.ID,
			Text: j.Text, Settings: string(settings), DateUnix: s.now().Unix(), CharFrom: r.From, CharTo: r.To,
			ContentType: j.Format.ContentType(), OutputFormat: j.Format.Name, Source: j.Source, State: store.StateProcessing,
		})
	})
	if err != nil {
		j.HistoryID, j.reservation = "", nil
		return err
	}
	if j.UserID != "" {
		account.CompleteItem(ctx, s.DB, j.UserID, account.ItemGenerateSpeech) // onboarding checklist
	}
	return nil
}

// Fail undoes Begin: the reservation is refunded and the history row goes, in one transaction.
func (s *Service) Fail(j *Job) {
	if j.reservation == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Refund(ctx, tx, j.reservation, s.now()); err != nil {
			return err
		}
		if j.HistoryID != "" {
			return tx.DeleteHistoryRow(ctx, j.WorkspaceID, j.HistoryID)
		}
		return nil
	})
}

// Finish settles a job that delivered everything: the reservation is committed in full and, when
// logging, the audio streamed into audio is stored and the history row marked created.
func (s *Service) Finish(ctx context.Context, j *Job, audio *historyAudio, al *Alignments) error {
	return s.settle(ctx, j, len(j.Text), audio, al)
}

// settle commits the reservation for the original text up to byte end, whose audio was
// delivered, refunding the rest; when logging, it stores what audio holds and keeps the history
// row with the delivered text and alignments.
func (s *Service) settle(ctx context.Context, j *Job, end int, audio *historyAudio, al *Alignments) error {
	chars := int64(utf8.RuneCountInString(j.Text[:end]))
	credits := j.Cost
	if end < len(j.Text) {
		credits = int64(math.Ceil(float64(chars) * j.Model.CostFactor))
	}
	// Audio that could not be stored does not make the delivered audio free: the item is kept
	// without it and the error reported.
	key, alJSON := "", ""
	var blobErr error
	if j.Logging {
		if blobErr = audio.commit(); blobErr == nil {
			key = audio.key
		}
		if al != nil {
			alJSON = al.storedJSON() // json.Marshal(al), faster
		}
	}
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, j.reservation, chars, credits, s.now()); err != nil || !j.Logging {
			return err
		}
		return tx.SettleHistory(ctx, j.WorkspaceID, j.HistoryID, j.Text[:end], j.CharFrom+credits, key, alJSON)
	})
	if err != nil && key != "" {
		_ = s.Blob.Delete(context.Background(), key)
	}
	return errors.Join(err, blobErr)
}

// progressEvery is how often a running job's delivered characters are written to its ledger
// entry, and heartbeatEvery how often it is touched when nothing new was delivered, so that
// metering.SettleStale (which settles entries quiet for longer) leaves it alone.
const (
	progressEvery  = time.Second
	heartbeatEvery = 30 * time.Second
)

// delivery tracks how much of a job's audio reached the client: the original text up to byte
// end, and how many characters of each alignment that covers. While the job runs, a goroutine
// records it in the ledger every progressEvery, so that a process that dies mid-stream is
// settled for what it sent.
type delivery struct {
	s *Service
	j *Job

	mu                  sync.Mutex
	end                 int
	origChars, normChar int

	stop, done chan struct{}
}

// track starts recording a begun job's delivery; close stops it.
func (s *Service) track(j *Job) *delivery {
	d := &delivery{s: s, j: j, stop: make(chan struct{}), done: make(chan struct{})}
	go d.record()
	return d
}

// sent marks the audio of the original text up to byte end (alignments up to origChars and
// normChars characters) as delivered.
func (d *delivery) sent(end, origChars, normChars int) {
	d.mu.Lock()
	d.end, d.origChars, d.normChar = end, origChars, normChars
	d.mu.Unlock()
}

func (d *delivery) get() (end, origChars, normChars int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.end, d.origChars, d.normChar
}

func (d *delivery) record() {
	defer close(d.done)
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	recorded, last := 0, time.Now()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		end, _, _ := d.get()
		if end == recorded && time.Since(last) < heartbeatEvery {
			continue
		}
		chars := int64(utf8.RuneCountInString(d.j.Text[:end]))
		credits := int64(math.Ceil(float64(chars) * d.j.Model.CostFactor))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := metering.Progress(ctx, d.s.DB, d.j.reservation, chars, min(credits, d.j.Cost), d.s.now()); err == nil {
			recorded, last = end, time.Now()
		}
		cancel()
	}
}

func (d *delivery) close() {
	close(d.stop)
	<-d.done
}

// settlePartial settles a stream that ended early (the client went away, or the engine failed
// after audio went out): the delivered characters are charged and the rest refunded, and the
// history item keeps the audio sent and the text it speaks. Nothing delivered is Fail.
func (s *Service) settlePartial(ctx context.Context, j *Job, d *delivery, audio *historyAudio, al *Alignments) error {
	end, origChars, normChars := d.get()
	if end == 0 {
		audio.abort()
		s.Fail(j)
		return nil
	}
	if al != nil {
		al.Alignment.truncate(origChars)
		al.NormalizedAlignment.truncate(normChars)
	}
	return s.settle(ctx, j, end, audio, al)
}

// truncate keeps the first n characters.
func (a *Alignment) truncate(n int) {
	n = min(n, len(a.Characters))
	a.Characters, a.Starts, a.Ends = a.Characters[:n], a.Starts[:min(n, len(a.Starts))], a.Ends[:min(n, len(a.Ends))]
}
