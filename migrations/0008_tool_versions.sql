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
CREATE UNIQUE INDEX `tool_versions_version_unique` ON `tool_versions` (`version`);