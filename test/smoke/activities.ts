export function createSmokeActivities(prefix: string) {
  return {
    async greet(name: string): Promise<string> {
      return `${prefix}, ${name}! (pid ${process.pid})`;
    },
  };
}
