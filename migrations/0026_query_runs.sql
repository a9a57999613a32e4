CREATE TABLE `query_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`configuration_version_id` text NOT NULL,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`terraform_version` text NOT NULL,
	`variables` text NOT NULL,
	`generate_config_out` integer NOT NULL,
	`resources_discovered` integer,
	`log` text DEFAULT '' NOT NULL,
	`created_by` text,
	`canceled_by` text,
	`status_timestamps` text NOT NULL,
	`progression` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`configuration_version_id`) REFERENCES `configuration_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `query_runs_ws_created` ON `query_runs` (`workspace_id`,`created_at`);