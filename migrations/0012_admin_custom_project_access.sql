ALTER TABLE `users` ADD `is_suspended` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `auto_destroy_activity_duration` text;--> statement-breakpoint
ALTER TABLE `team_projects` ADD `project_access` text;--> statement-breakpoint
ALTER TABLE `team_projects` ADD `workspace_access` text;