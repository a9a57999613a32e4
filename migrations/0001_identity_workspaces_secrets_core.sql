CREATE TABLE `secret_leases` (
	`id` text PRIMARY KEY NOT NULL,
	`mount_uuid` text NOT NULL,
	`engine_type` text NOT NULL,
	`path` text NOT NULL,
	`token_id` text,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_renewed_at` integer,
	`renewable` integer NOT NULL,
	`ttl_seconds` integer NOT NULL,
	`max_ttl_seconds` integer NOT NULL,
	`revoke_data` text NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`due_at` integer NOT NULL,
	`revoke_attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text
);
--> statement-breakpoint
CREATE INDEX `secret_leases_due` ON `secret_leases` (`due_at`);--> statement-breakpoint
CREATE INDEX `secret_leases_token` ON `secret_leases` (`token_id`);--> statement-breakpoint
CREATE INDEX `secret_leases_mount` ON `secret_leases` (`mount_uuid`);--> statement-breakpoint
CREATE TABLE `run_task_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_task_id` text NOT NULL,
	`stage` text NOT NULL,
	`run_id` text NOT NULL,
	`url` text NOT NULL,
	`signed` integer NOT NULL,
	`response_status` integer,
	`response_excerpt` text,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_task_id`) REFERENCES `workspace_tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_task_deliveries_wstask` ON `run_task_deliveries` (`workspace_task_id`);--> statement-breakpoint
CREATE TABLE `run_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`hmac_key` text,
	`enabled` integer NOT NULL,
	`global_configuration` text,
	`agent_pool_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_pool_id`) REFERENCES `agent_pools`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `run_tasks_org_name` ON `run_tasks` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `workspace_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`task_id` text NOT NULL,
	`enforcement_level` text NOT NULL,
	`stages` text NOT NULL,
	`enabled` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`task_id`) REFERENCES `run_tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_tasks_ws_task` ON `workspace_tasks` (`workspace_id`,`task_id`);--> statement-breakpoint
CREATE INDEX `workspace_tasks_task` ON `workspace_tasks` (`task_id`);--> statement-breakpoint
CREATE TABLE `secret_policies` (
	`name` text PRIMARY KEY NOT NULL,
	`raw` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `agent_pools` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`organization_scoped` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_pools_org_name` ON `agent_pools` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `remote_state_consumers` (
	`workspace_id` text NOT NULL,
	`consumer_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `consumer_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`consumer_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `remote_state_consumers_consumer` ON `remote_state_consumers` (`consumer_id`);--> statement-breakpoint
CREATE TABLE `ssh_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ssh_keys_org` ON `ssh_keys` (`organization_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_org_name` ON `tags` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `team_workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`access` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_workspaces_team_ws` ON `team_workspaces` (`team_id`,`workspace_id`);--> statement-breakpoint
CREATE INDEX `team_workspaces_ws` ON `team_workspaces` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `workspace_tags` (
	`workspace_id` text NOT NULL,
	`tag_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `tag_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `workspace_tags_tag` ON `workspace_tags` (`tag_id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`execution_mode` text,
	`agent_pool_id` text,
	`auto_apply` integer NOT NULL,
	`auto_apply_run_trigger` integer DEFAULT false NOT NULL,
	`auto_destroy_at` integer,
	`auto_destroy_activity_duration` text,
	`allow_destroy_plan` integer NOT NULL,
	`file_triggers_enabled` integer NOT NULL,
	`global_remote_state` integer NOT NULL,
	`queue_all_runs` integer NOT NULL,
	`speculative_enabled` integer NOT NULL,
	`structured_run_output_enabled` integer NOT NULL,
	`assessments_enabled` integer NOT NULL,
	`tool_version` text NOT NULL,
	`trigger_prefixes` text DEFAULT '[]' NOT NULL,
	`trigger_patterns` text DEFAULT '[]' NOT NULL,
	`working_directory` text,
	`vcs_repo` text,
	`source` text NOT NULL,
	`source_name` text,
	`source_url` text,
	`locked_by` text,
	`lock_reason` text,
	`ssh_key_id` text,
	`resource_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`latest_change_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_pool_id`) REFERENCES `agent_pools`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`ssh_key_id`) REFERENCES `ssh_keys`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_org_name` ON `workspaces` (`organization_id`,`name`);--> statement-breakpoint
CREATE INDEX `workspaces_org_created` ON `workspaces` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `workspaces_org_updated` ON `workspaces` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `workspaces_agent_pool` ON `workspaces` (`agent_pool_id`);--> statement-breakpoint
CREATE INDEX `workspaces_ssh_key` ON `workspaces` (`ssh_key_id`);--> statement-breakpoint
ALTER TABLE `teams` ADD `sso_team_id` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `allow_member_token_management` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `secret_tokens` ADD `last_renewal_at` integer;--> statement-breakpoint
ALTER TABLE `secret_tokens` ADD `period_seconds` integer DEFAULT 0 NOT NULL;