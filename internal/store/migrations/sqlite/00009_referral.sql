-- +goose Up
-- Referrals (spec §5, §7) and sensitive-action verification (spec §7 verify-sensitive-action-code).
ALTER TABLE users ADD COLUMN referred_by_code TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN referral_link_code TEXT;
CREATE UNIQUE INDEX users_referral_link_code ON users(referral_link_code);
ALTER TABLE sessions ADD COLUMN sensitive_verified_at_unix INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE sessions DROP COLUMN sensitive_verified_at_unix;
DROP INDEX users_referral_link_code;
ALTER TABLE users DROP COLUMN referral_link_code;
ALTER TABLE users DROP COLUMN referred_by_code;
