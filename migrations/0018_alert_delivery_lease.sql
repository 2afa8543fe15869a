-- A delivery is claimed with a lease instead of a row lock held through the POST (issue 26): the
-- deliverer sets lease_owner and lease_until in one short statement, posts outside any transaction,
-- then records the outcome if it still holds the lease. No other deliverer claims the row before
-- lease_until; a sender that dies after its POST leaves the lease to run out, and the row is sent
-- again with the same Idempotency-Key. Both null: nobody holds the row.
ALTER TABLE "alert_events" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "lease_until" timestamp with time zone;
