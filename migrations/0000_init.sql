CREATE TABLE `organization_memberships` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memberships_org_user` ON `organization_memberships` (`organization_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `memberships_user` ON `organization_memberships` (`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`attributes` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_name_unique` ON `organizations` (`name`);--> statement-breakpoint
CREATE TABLE `platform_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` text,
	`team_id` text,
	`organization_id` text,
	`token_hash` text NOT NULL,
	`description` text,
	`created_by_id` text,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expired_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `platform_tokens_token_hash_unique` ON `platform_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `tokens_user` ON `platform_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `tokens_team` ON `platform_tokens` (`team_id`);--> statement-breakpoint
CREATE INDEX `tokens_org` ON `platform_tokens` (`organization_id`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_members_user` ON `team_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`visibility` text DEFAULT 'secret' NOT NULL,
	`is_owners` integer DEFAULT false NOT NULL,
	`organization_access` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_org_name` ON `teams` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`is_site_admin` integer DEFAULT false NOT NULL,
	`is_service_account` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `mounts` (
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
CREATE UNIQUE INDEX `mounts_accessor_unique` ON `mounts` (`accessor`);--> statement-breakpoint
CREATE UNIQUE INDEX `mounts_uuid_unique` ON `mounts` (`uuid`);--> statement-breakpoint
CREATE TABLE `secret_entries` (
	`mount_uuid` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`mount_uuid`, `key`)
);
--> statement-breakpoint
CREATE TABLE `secret_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`accessor` text NOT NULL,
	`parent_id` text,
	`policies` text NOT NULL,
	`display_name` text NOT NULL,
	`meta` text,
	`path` text NOT NULL,
	`num_uses` integer DEFAULT 0 NOT NULL,
	`orphan` integer DEFAULT false NOT NULL,
	`renewable` integer DEFAULT false NOT NULL,
	`ttl_seconds` integer DEFAULT 0 NOT NULL,
	`explicit_max_ttl_seconds` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `secret_tokens_accessor_unique` ON `secret_tokens` (`accessor`);--> statement-breakpoint
CREATE INDEX `secret_tokens_parent` ON `secret_tokens` (`parent_id`);--> statement-breakpoint
CREATE INDEX `secret_tokens_expiry` ON `secret_tokens` (`expires_at`);