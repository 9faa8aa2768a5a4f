// The page's profile lists come from the core's registry: today's registry gives the lists the
// page has always shown for the old eras (linux-6.18 where the core runs it), and a registry with
// one more era shows it in every list, with a colour of its own, and nothing else moves.
import { describe, expect, it } from 'vitest';
import { coreEras } from './erasNode';
import { compareChecked, compareProfiles, defaultProfile, eraOf, importProfiles, parseEras, type Era } from './eras';
import { contentionVariants, searchVariants, sweepVariants } from './panels/chartsPanel';
import { profileStyle } from './panels/charts/lineChart';

/** Every list the page builds from a registry. */
function lists(eras: readonly Era[]) {
  return {
    import: importProfiles(eras).map(([v]) => v),
    compare: compareProfiles(eras),
    checked: compareChecked(eras),
    sweep: sweepVariants(eras).map((v) => v.key),
    search: searchVariants(eras).map((v) => v.key),
    contention: contentionVariants(eras).map((v) => v.key),
    styles: eras.map((e) => profileStyle(eras, e.name)),
  };
}

describe('the eras from the core', () => {
  it("are the registry's, in its order, with what each kernel has", () => {
    const eras = coreEras();
    expect(eras.map((e) => e.name)).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc']);
    expect(eras.filter((e) => !e.freeTree).map((e) => e.name)).toEqual(['linux-5.1']);
    expect(eras.filter((e) => e.vmapNodes).map((e) => e.name)).toEqual(['linux-6.9', 'linux-6.18']);
    expect(eras.filter((e) => e.bumpOverlay).map((e) => e.name)).toEqual(['maple-rfc']);
    expect(eras.filter((e) => e.firstRelease === null).map((e) => e.name)).toEqual(['maple-rfc']);
    expect(eraOf(eras, 'linux-6.18')?.firstRelease).toEqual([6, 18]);
    expect(defaultProfile(eras)).toBe('linux-5.2');
  });

  it('give the lists the page showed before, linux-6.18 added where the core runs it', () => {
    const l = lists(coreEras());
    expect(l.import).toEqual(['', 'linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18']);
    expect(l.compare).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc']);
    expect(l.checked).toEqual(['linux-5.1', 'linux-5.2']);
    expect(l.sweep).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    expect(l.search).toEqual(['linux-6.9', 'linux-6.18', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    expect(l.contention).toEqual(['linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc-bump-on', 'maple-rfc-bump-off']);
    // The colours and symbols each old era always had (Okabe–Ito), and one more for 6.18.
    const style = Object.fromEntries(coreEras().map((e, i) => [e.name, l.styles[i]]));
    expect(style).toEqual({
      'linux-5.1': { color: '#d55e00', symbol: 1 },
      'linux-5.2': { color: '#0072b2', symbol: 0 },
      'linux-6.1': { color: '#009e73', symbol: 3 },
      'linux-6.9': { color: '#cc79a7', symbol: 2 },
      'linux-6.18': { color: '#e69f00', symbol: 5 },
      'maple-rfc': { color: '#56b4e9', symbol: 4 },
    });
    // Dashed as before: the list walk, and the overlay on.
    expect(sweepVariants(coreEras()).filter((v) => v.dashed).map((v) => v.key)).toEqual(['linux-5.1', 'maple-rfc-bump-on']);
    expect(contentionVariants(coreEras()).some((v) => v.dashed)).toBe(false);
  });

  it('show an era added to the registry in every list, with a colour and symbol of its own', () => {
    const today = coreEras();
    const next: Era = { ...eraOf(today, 'linux-6.18')!, name: 'linux-7.4', firstRelease: [7, 4] };
    const eras = [...today.slice(0, 5), next, today[5]];
    const before = lists(today);
    const after = lists(eras);
    expect(after.import).toEqual([...before.import, 'linux-7.4']);
    expect(after.compare).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'linux-7.4', 'maple-rfc']);
    expect(after.checked).toEqual(before.checked);
    expect(after.sweep).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'linux-7.4', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    expect(after.search).toEqual(['linux-6.9', 'linux-6.18', 'linux-7.4', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    expect(after.contention).toEqual(['linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'linux-7.4', 'maple-rfc-bump-on', 'maple-rfc-bump-off']);
    const colors = after.styles.map((s) => s.color);
    const symbols = after.styles.map((s) => s.symbol);
    expect(new Set(colors).size).toBe(eras.length);
    expect(new Set(symbols).size).toBe(eras.length);
    // The eras before it keep theirs.
    expect(after.styles.slice(0, 5)).toEqual(before.styles.slice(0, 5));
  });

  it('follow what an era has, not its name', () => {
    const base = coreEras();
    // An era renamed keeps its place in every list by what it has.
    const renamed = base.map((e) => ({ ...e, name: e.name.replace('linux-', 'v') }));
    const l = lists(renamed);
    expect(l.checked).toEqual(['v5.1', 'v5.2']);
    expect(l.contention).toEqual(['v5.2', 'v6.1', 'v6.9', 'v6.18', 'maple-rfc-bump-on', 'maple-rfc-bump-off']);
    expect(l.search).toEqual(['v6.9', 'v6.18', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    // A list walk added at the end is dashed and left out of the contention rows.
    const walk: Era = { ...base[0], name: 'walk-2', firstRelease: null };
    expect(sweepVariants([...base, walk]).find((v) => v.key === 'walk-2')?.dashed).toBe(true);
    expect(contentionVariants([...base, walk]).map((v) => v.key)).not.toContain('walk-2');
    expect(importProfiles([...base, walk]).map(([v]) => v)).not.toContain('walk-2');
  });

  it('are refused, naming the field, when the JSON is not the contract', () => {
    const good = JSON.stringify([{ name: 'x', first_release: [1, 2], default: true, free_tree: true, lazy_in_busy: false, vmap_nodes: false, per_cpu: false, bump_overlay: false, bug_on_bad_request: false, module_tests: 3 }]);
    expect(parseEras(good)[0]).toMatchObject({ name: 'x', firstRelease: [1, 2], isDefault: true, moduleTests: 3 });
    const bad = (f: Record<string, unknown>) => JSON.stringify([{ ...JSON.parse(good)[0], ...f }]);
    expect(() => parseEras(bad({ vmap_nodes: 'yes' }))).toThrow('era x: vmap_nodes');
    expect(() => parseEras(bad({ first_release: [6] }))).toThrow('era x: first_release');
    expect(() => parseEras(bad({ name: 7 }))).toThrow('era 0: name');
    expect(() => parseEras('[]')).toThrow('names no era');
    expect(() => parseEras('{}')).toThrow('eras: expected an array');
  });
});
