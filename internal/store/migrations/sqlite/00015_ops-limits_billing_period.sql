-- +goose Up
-- monthly_period or annual_period (the API's billing_period); set by timbre admin set-plan.
ALTER TABLE workspaces ADD COLUMN billing_period TEXT NOT NULL DEFAULT 'monthly_period';

-- +goose Down
ALTER TABLE workspaces DROP COLUMN billing_period;
