CREATE TABLE `emulator_clock` (
	`id` integer PRIMARY KEY NOT NULL,
	`offset_ms` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `run_task_deliveries` ADD `callback_id` text;--> statement-breakpoint
ALTER TABLE `run_task_deliveries` ADD `token_hash` text;--> statement-breakpoint
ALTER TABLE `run_task_deliveries` ADD `callback_status` text;--> statement-breakpoint
ALTER TABLE `run_task_deliveries` ADD `callback_message` text;--> statement-breakpoint
ALTER TABLE `run_task_deliveries` ADD `callback_at` integer;--> statement-breakpoint
CREATE INDEX `run_task_deliveries_callback` ON `run_task_deliveries` (`callback_id`);