CREATE TABLE `agent_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_pool_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`description` text NOT NULL,
	`created_by_id` text,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`agent_pool_id`) REFERENCES `agent_pools`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_token_hash_unique` ON `agent_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `agent_tokens_pool` ON `agent_tokens` (`agent_pool_id`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_pool_id` text NOT NULL,
	`name` text NOT NULL,
	`ip_address` text NOT NULL,
	`status` text NOT NULL,
	`last_ping_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_pool_id`) REFERENCES `agent_pools`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agents_pool` ON `agents` (`agent_pool_id`,`last_ping_at`);--> statement-breakpoint
CREATE TABLE `reserved_tag_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`key` text NOT NULL,
	`disable_overrides` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reserved_tag_keys_key` ON `reserved_tag_keys` (`organization_id`,`key`);