/**
 * Header set on requests that arrived with the `LIST` method. Node's HTTP parser refuses `LIST`,
 * so the connection layer rewrites such requests to `GET` and marks them with this header; the
 * secrets layer then treats them exactly like `GET ?list=true`.
 */
export const LIST_MARKER_HEADER = 'x-understudy-list-method';
