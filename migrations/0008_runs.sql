CREATE TABLE `configuration_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`speculative` integer NOT NULL,
	`provisional` integer NOT NULL,
	`auto_queue_runs` integer NOT NULL,
	`error` text,
	`error_message` text,
	`upload_secret` text,
	`upload_expires_at` integer,
	`archive` blob,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `configuration_versions_ws_created` ON `configuration_versions` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `run_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`body` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_comments_run` ON `run_comments` (`run_id`);--> statement-breakpoint
CREATE TABLE `run_events` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`action` text NOT NULL,
	`description` text,
	`actor` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_events_run` ON `run_events` (`run_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `run_phases` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`has_changes` integer DEFAULT false NOT NULL,
	`resource_additions` integer DEFAULT 0 NOT NULL,
	`resource_changes` integer DEFAULT 0 NOT NULL,
	`resource_destructions` integer DEFAULT 0 NOT NULL,
	`resource_imports` integer DEFAULT 0 NOT NULL,
	`log` text DEFAULT '' NOT NULL,
	`json_output` blob,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_phases_run` ON `run_phases` (`run_id`);--> statement-breakpoint
CREATE TABLE `run_triggers` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`source_workspace_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_triggers_ws` ON `run_triggers` (`workspace_id`);--> statement-breakpoint
CREATE INDEX `run_triggers_source` ON `run_triggers` (`source_workspace_id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`configuration_version_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`trigger_reason` text NOT NULL,
	`message` text NOT NULL,
	`is_destroy` integer NOT NULL,
	`refresh` integer NOT NULL,
	`refresh_only` integer NOT NULL,
	`plan_only` integer NOT NULL,
	`auto_apply` integer NOT NULL,
	`allow_empty_apply` integer NOT NULL,
	`save_plan` integer NOT NULL,
	`target_addrs` text NOT NULL,
	`replace_addrs` text NOT NULL,
	`variables` text NOT NULL,
	`terraform_version` text NOT NULL,
	`has_changes` integer NOT NULL,
	`created_by` text,
	`confirmed_by` text,
	`status_timestamps` text NOT NULL,
	`force_cancel_available_at` integer,
	`progression` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`configuration_version_id`) REFERENCES `configuration_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `runs_ws_sequence` ON `runs` (`workspace_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `runs_org_created` ON `runs` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_status` ON `runs` (`status`);--> statement-breakpoint
CREATE TABLE `task_results` (
	`id` text PRIMARY KEY NOT NULL,
	`task_stage_id` text NOT NULL,
	`workspace_task_id` text,
	`task_id` text NOT NULL,
	`task_name` text NOT NULL,
	`task_url` text NOT NULL,
	`enforcement_level` text NOT NULL,
	`status` text NOT NULL,
	`message` text,
	`url` text,
	`token_hash` text,
	`deadline` integer,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`task_stage_id`) REFERENCES `task_stages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_task_id`) REFERENCES `workspace_tasks`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `task_results_stage` ON `task_results` (`task_stage_id`);--> statement-breakpoint
CREATE TABLE `task_stages` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`stage` text NOT NULL,
	`status` text NOT NULL,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_stages_run` ON `task_stages` (`run_id`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `current_run_id` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `latest_run_id` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `current_configuration_version_id` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `runs_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `run_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `plan_duration_total_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `plans_timed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `apply_duration_total_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `applies_timed` integer DEFAULT 0 NOT NULL;