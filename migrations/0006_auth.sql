CREATE TABLE `auth_mounts` (
	`path` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`accessor` text NOT NULL,
	`uuid` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`options` text,
	`local` integer DEFAULT false NOT NULL,
	`seal_wrap` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_mounts_accessor_unique` ON `auth_mounts` (`accessor`);--> statement-breakpoint
CREATE UNIQUE INDEX `auth_mounts_uuid_unique` ON `auth_mounts` (`uuid`);--> statement-breakpoint
ALTER TABLE `secret_tokens` ADD `max_ttl_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `secret_tokens` ADD `bound_cidrs` text;