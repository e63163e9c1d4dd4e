import { onCurrentBuild } from '../../../workflows/author/build-moves';

describe("amsflow's long-lived workflows move to the current build at continue-as-new", () => {
  it('start the next run on the current build when this run is on a versioned worker (a named deployment)', () => {
    expect(onCurrentBuild({ deploymentName: 'amsflow', buildId: 'b1' })).toEqual({
      initialVersioningBehavior: 'AUTO_UPGRADE',
    });
  });

  it('ask nothing on an unversioned worker, which names no deployment', () => {
    // An unversioned worker's task carries its build id and no deployment name.
    expect(onCurrentBuild({ deploymentName: '', buildId: 'bundle-1' })).toEqual({});
    expect(onCurrentBuild(undefined)).toEqual({});
  });
});
