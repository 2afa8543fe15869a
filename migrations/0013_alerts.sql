CREATE TABLE "alert_events" (
	"event_key" text NOT NULL,
	"webhook" text NOT NULL,
	"webhook_name" text NOT NULL,
	"rule_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"subject" text NOT NULL,
	"tick" timestamp with time zone,
	"payload" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "alert_events_event_key_webhook_pk" PRIMARY KEY("event_key","webhook"),
	CONSTRAINT "alert_events_state_check" CHECK ("alert_events"."state" in ('pending', 'delivered', 'failed')),
	CONSTRAINT "alert_events_status_check" CHECK ("alert_events"."status" in ('firing', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "alert_states" (
	"rule_id" text NOT NULL,
	"subject" text NOT NULL,
	"episode_key" text,
	"episode_open" boolean DEFAULT false NOT NULL,
	"episode_tick" timestamp with time zone,
	"last_fired_at" timestamp with time zone,
	"baseline" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_states_rule_id_subject_pk" PRIMARY KEY("rule_id","subject")
);
--> statement-breakpoint
CREATE INDEX "alert_events_pending_next_attempt_at_idx" ON "alert_events" USING btree ("next_attempt_at") WHERE "alert_events"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "alert_events_created_at_idx" ON "alert_events" USING btree ("created_at");