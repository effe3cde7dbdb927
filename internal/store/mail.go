package store

import (
	"context"
	"time"
)

// Mail is a message kept for the development mailbox (used when no SMTP server is configured).
type Mail struct {
	ID        string
	To        string
	Subject   string
	Text      string
	HTML      string
	CreatedAt int64
}

// AddMail stores a message in the development mailbox.
func (db *DB) AddMail(ctx context.Context, m Mail) error {
	if m.ID == "" {
		m.ID = NewID()
	}
	if m.CreatedAt == 0 {
		m.CreatedAt = time.Now().Unix()
	}
	_, err := db.exec(ctx, `INSERT INTO mail_outbox (id, recipient, subject, text_body, html_body, created_at_unix) VALUES (?, ?, ?, ?, ?, ?)`,
		m.ID, m.To, m.Subject, m.Text, m.HTML, m.CreatedAt)
	return err
}

// ListMail returns the newest messages of the development mailbox.
func (db *DB) ListMail(ctx context.Context, limit int) ([]Mail, error) {
	rows, err := db.query(ctx, `SELECT id, recipient, subject, text_body, html_body, created_at_unix FROM mail_outbox ORDER BY created_at_unix DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Mail
	for rows.Next() {
		var m Mail
		if err := rows.Scan(&m.ID, &m.To, &m.Subject, &m.Text, &m.HTML, &m.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
