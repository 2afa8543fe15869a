CREATE TABLE "refresh_targets" (
	"dataset" text NOT NULL,
	"target" text NOT NULL,
	"last_tick" timestamp with time zone NOT NULL,
	"substance" jsonb,
	"observations" jsonb NOT NULL,
	"evidence" jsonb NOT NULL,
	"prices" jsonb,
	"change_rate_per_hour" double precision NOT NULL,
	"changed_at" timestamp with time zone,
	"compared" integer DEFAULT 0 NOT NULL,
	"changes" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "refresh_targets_pkey" PRIMARY KEY("dataset","target")
);
--> statement-breakpoint
ALTER TABLE "watched_addresses" ADD COLUMN "max_age_s" integer;--> statement-breakpoint
ALTER TABLE "watched_addresses" ADD COLUMN "every_s" integer;--> statement-breakpoint
ALTER TABLE "watched_addresses" ADD CONSTRAINT "watched_addresses_max_age_s_check" CHECK ("watched_addresses"."max_age_s" > 0);--> statement-breakpoint
ALTER TABLE "watched_addresses" ADD CONSTRAINT "watched_addresses_every_s_check" CHECK ("watched_addresses"."every_s" > 0);