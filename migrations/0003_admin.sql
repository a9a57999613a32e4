CREATE TABLE `admin_settings` (
	`name` text PRIMARY KEY NOT NULL,
	`attributes` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`delivered_via` text NOT NULL,
	`sender` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text,
	`body` text NOT NULL,
	`sent_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_sent_at` ON `outbox` (`sent_at`);--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`private_key_pem` text NOT NULL,
	`public_jwk` text NOT NULL,
	`current` integer NOT NULL,
	`created_at` integer NOT NULL
);
