CREATE TABLE `state_version_outputs` (
	`id` text PRIMARY KEY NOT NULL,
	`state_version_id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`sensitive` integer NOT NULL,
	`detailed_type` text,
	`value` text,
	FOREIGN KEY (`state_version_id`) REFERENCES `state_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `state_version_outputs_sv_position` ON `state_version_outputs` (`state_version_id`,`position`);--> statement-breakpoint
CREATE TABLE `state_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`serial` integer NOT NULL,
	`lineage` text,
	`md5` text NOT NULL,
	`status` text NOT NULL,
	`state` blob,
	`json_state` blob,
	`upload_secret` text,
	`json_upload_secret` text,
	`resource_count` integer DEFAULT 0 NOT NULL,
	`terraform_version` text,
	`state_format_version` integer,
	`size` integer DEFAULT 0 NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `state_versions_ws_sequence` ON `state_versions` (`workspace_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `state_versions_ws_status_sequence` ON `state_versions` (`workspace_id`,`status`,`sequence`);--> statement-breakpoint
CREATE TABLE `workspace_variables` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`hcl` integer NOT NULL,
	`sensitive` integer NOT NULL,
	`version_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_variables_ws_category_key` ON `workspace_variables` (`workspace_id`,`category`,`key`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_org_name` ON `projects` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `team_projects` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`project_id` text NOT NULL,
	`access` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_projects_team_project` ON `team_projects` (`team_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `team_projects_project` ON `team_projects` (`project_id`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `project_id` text REFERENCES projects(id);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `current_state_version_id` text;--> statement-breakpoint
CREATE INDEX `workspaces_project` ON `workspaces` (`project_id`);--> statement-breakpoint
INSERT INTO `projects` (`id`, `organization_id`, `name`, `description`, `is_default`, `created_at`, `updated_at`)
  SELECT 'prj-' || substr(`id`, 5), `id`, 'Default Project', NULL, 1, `created_at`, `created_at` FROM `organizations`;
