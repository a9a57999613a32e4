CREATE TABLE `audit_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`organization_id` text NOT NULL,
	`timestamp` integer NOT NULL,
	`accessor_id` text NOT NULL,
	`accessor_description` text NOT NULL,
	`accessor_type` text NOT NULL,
	`request_id` text NOT NULL,
	`resource_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`action` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_id_unique` ON `audit_events` (`id`);--> statement-breakpoint
CREATE INDEX `audit_events_org_seq` ON `audit_events` (`organization_id`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_events_org_time` ON `audit_events` (`organization_id`,`timestamp`);--> statement-breakpoint
CREATE TABLE `tool_versions` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE UNIQUE INDEX `tool_versions_version_unique` ON `tool_versions` (`version`);--> statement-breakpoint
CREATE TABLE `variable_set_projects` (
	`set_id` text NOT NULL,
	`project_id` text NOT NULL,
	PRIMARY KEY(`set_id`, `project_id`),
	FOREIGN KEY (`set_id`) REFERENCES `variable_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variable_set_projects_project` ON `variable_set_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `variable_set_variables` (
	`id` text PRIMARY KEY NOT NULL,
	`set_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`hcl` integer NOT NULL,
	`sensitive` integer NOT NULL,
	`version_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`set_id`) REFERENCES `variable_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variable_set_variables_set_category_key` ON `variable_set_variables` (`set_id`,`category`,`key`);--> statement-breakpoint
CREATE TABLE `variable_set_workspaces` (
	`set_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	PRIMARY KEY(`set_id`, `workspace_id`),
	FOREIGN KEY (`set_id`) REFERENCES `variable_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variable_set_workspaces_ws` ON `variable_set_workspaces` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `variable_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`global` integer NOT NULL,
	`priority` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variable_sets_org_name` ON `variable_sets` (`organization_id`,`name`);