/**
 * The answers of an ioredis pipeline, in order: the first command's error thrown as a call would
 * throw it, and a pipeline that never ran (null: the connection closed) as an error of its own.
 */
export function pipelineResults(answers: [Error | null, unknown][] | null): unknown[] {
  if (!answers) throw new Error('Redis pipeline did not run: the connection is closed');
  return answers.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
