/** lib/project/link_schemes.ts: the schemes a manifest's intent filters declare. */
import { assertEquals } from "../assert.ts";
import { intentFilterSchemes } from "../../lib/project/link_schemes.ts";

Deno.test("intentFilterSchemes() reads the schemes of intent filters only", () => {
  const xml = `<manifest><application>
    <activity android:name=".A"><intent-filter>
      <action android:name="android.intent.action.VIEW" />
      <data android:scheme="MyApp" android:host="x" /><data android:scheme='geo'/>
      <data android:scheme="\${appAuthRedirectScheme}" />
    </intent-filter></activity>
    <!-- <intent-filter><data android:scheme="commented" /></intent-filter> -->
    <provider android:name=".P"><data android:scheme="outside" /></provider>
  </application></manifest>`;
  assertEquals(intentFilterSchemes(xml), ["myapp", "geo"]);
});
