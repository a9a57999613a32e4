CREATE TABLE `server_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`key` blob NOT NULL
);
--> statement-breakpoint
ALTER TABLE `registry_module_versions` ADD `upload_sealed` text;