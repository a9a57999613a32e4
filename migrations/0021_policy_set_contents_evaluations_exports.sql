CREATE TABLE `policy_tool_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`tool` text NOT NULL,
	`version` text NOT NULL,
	`url` text NOT NULL,
	`sha` text NOT NULL,
	`official` integer NOT NULL,
	`enabled` integer NOT NULL,
	`beta` integer NOT NULL,
	`deprecated` integer NOT NULL,
	`deprecated_reason` text,
	`archs` text NOT NULL,
	`removed` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policy_tool_versions_tool_version` ON `policy_tool_versions` (`tool`,`version`);--> statement-breakpoint
CREATE TABLE `plan_exports` (
	`id` text PRIMARY KEY NOT NULL,
	`plan_id` text NOT NULL,
	`data_type` text NOT NULL,
	`status` text NOT NULL,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`plan_id`) REFERENCES `run_phases`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `plan_exports_plan` ON `plan_exports` (`plan_id`);--> statement-breakpoint
CREATE TABLE `policy_evaluations` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`task_stage_id` text NOT NULL,
	`status` text NOT NULL,
	`result_count` text NOT NULL,
	`status_timestamps` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`task_stage_id`) REFERENCES `task_stages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_evaluations_stage` ON `policy_evaluations` (`task_stage_id`);--> statement-breakpoint
CREATE INDEX `policy_evaluations_run` ON `policy_evaluations` (`run_id`);--> statement-breakpoint
CREATE TABLE `policy_set_outcomes` (
	`id` text PRIMARY KEY NOT NULL,
	`policy_evaluation_id` text NOT NULL,
	`policy_set_id` text NOT NULL,
	`policy_set_name` text NOT NULL,
	`policy_set_description` text,
	`overridable` integer NOT NULL,
	`outcomes` text NOT NULL,
	`result_count` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`policy_evaluation_id`) REFERENCES `policy_evaluations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_set_outcomes_evaluation` ON `policy_set_outcomes` (`policy_evaluation_id`);--> statement-breakpoint
CREATE TABLE `policy_set_parameters` (
	`id` text PRIMARY KEY NOT NULL,
	`policy_set_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`sensitive` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`policy_set_id`) REFERENCES `policy_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policy_set_parameters_key` ON `policy_set_parameters` (`policy_set_id`,`key`);--> statement-breakpoint
CREATE TABLE `policy_set_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`policy_set_id` text NOT NULL,
	`status` text NOT NULL,
	`status_timestamps` text NOT NULL,
	`error` text,
	`error_message` text,
	`archive` blob,
	`upload_secret_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`policy_set_id`) REFERENCES `policy_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_set_versions_set` ON `policy_set_versions` (`policy_set_id`,`created_at`);