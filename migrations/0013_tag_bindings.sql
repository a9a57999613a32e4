CREATE TABLE `tag_bindings` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text,
	`project_id` text,
	`key` text NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tag_bindings_workspace_key` ON `tag_bindings` (`workspace_id`,`key`);--> statement-breakpoint
CREATE UNIQUE INDEX `tag_bindings_project_key` ON `tag_bindings` (`project_id`,`key`);--> statement-breakpoint
CREATE INDEX `tag_bindings_org_key_value` ON `tag_bindings` (`organization_id`,`key`,`value`);