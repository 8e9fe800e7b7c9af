/**
 * The simulated fleet: an x86_64 Google emulator (API 35), a Samsung phone on USB (API 34) and a
 * Pixel over wireless adb (API 33). Property names and value shapes follow real `getprop` output;
 * the values are our own.
 */
import type { Battery, DeviceSpec } from "./device.ts";

interface Build {
  brand: string;
  manufacturer: string;
  model: string;
  name: string;
  device: string;
  board: string;
  hardware: string;
  platform: string;
  abi: string;
  abiList: string;
  api: number;
  release: string;
  buildId: string;
  incremental: string;
  type: "user" | "userdebug";
  tags: string;
  securityPatch: string;
  utcSeconds: number;
  density: number;
  serialno: string;
}

function fingerprint(b: Build): string {
  return `${b.brand}/${b.name}/${b.device}:${b.release}/${b.buildId}/${b.incremental}:${b.type}/${b.tags}`;
}

function commonProps(b: Build): Record<string, string> {
  const fp = fingerprint(b);
  const date = new Date(b.utcSeconds * 1000).toUTCString().replace("GMT", "UTC");
  const p: Record<string, string> = {
    "dalvik.vm.heapgrowthlimit": "256m",
    "dalvik.vm.heapsize": "512m",
    "dalvik.vm.isa.arm64.variant": b.abi.startsWith("arm") ? "cortex-a76" : "",
    "dalvik.vm.usejit": "true",
    "debug.hwui.renderer": "skiagl",
    "gsm.sim.state": "LOADED",
    "init.svc.adbd": "running",
    "init.svc.bootanim": "stopped",
    "init.svc.surfaceflinger": "running",
    "net.bt.name": "Android",
    "persist.sys.locale": "en-US",
    "persist.sys.timezone": "Europe/Berlin",
    "persist.sys.usb.config": "mtp,adb",
    "persist.sys.boot.reason.history": `reboot,userrequested,${b.utcSeconds + 86400}\nreboot,ota,${
      b.utcSeconds + 3600
    }\nshutdown,userrequested,${b.utcSeconds}`,
    "ro.adb.secure": "1",
    "ro.board.platform": b.platform,
    "ro.boot.serialno": b.serialno,
    "ro.boot.hardware": b.hardware,
    "ro.bootmode": "unknown",
    "ro.build.characteristics": "default",
    "ro.build.date": date,
    "ro.build.date.utc": String(b.utcSeconds),
    "ro.build.description":
      `${b.name}-${b.type} ${b.release} ${b.buildId} ${b.incremental} ${b.tags}`,
    "ro.build.display.id": b.buildId,
    "ro.build.fingerprint": fp,
    "ro.build.flavor": `${b.name}-${b.type}`,
    "ro.build.host": "abfarm-release-2004-0155",
    "ro.build.id": b.buildId,
    "ro.build.product": b.device,
    "ro.build.tags": b.tags,
    "ro.build.type": b.type,
    "ro.build.user": "android-build",
    "ro.build.version.codename": "REL",
    "ro.build.version.incremental": b.incremental,
    "ro.build.version.min_supported_target_sdk": b.api >= 34 ? "23" : "23",
    "ro.build.version.preview_sdk": "0",
    "ro.build.version.release": b.release,
    "ro.build.version.release_or_codename": b.release,
    "ro.build.version.sdk": String(b.api),
    "ro.build.version.security_patch": b.securityPatch,
    "ro.crypto.state": "encrypted",
    "ro.crypto.type": "file",
    "ro.debuggable": b.type === "userdebug" ? "1" : "0",
    "ro.hardware": b.hardware,
    "ro.opengles.version": "196610",
    "ro.product.board": b.board,
    "ro.product.brand": b.brand,
    "ro.product.cpu.abi": b.abi,
    "ro.product.cpu.abilist": b.abiList,
    "ro.product.cpu.abilist32": b.abiList.split(",").filter((a) => !a.includes("64")).join(","),
    "ro.product.cpu.abilist64": b.abiList.split(",").filter((a) => a.includes("64")).join(","),
    "ro.product.device": b.device,
    "ro.product.first_api_level": String(b.api - 2),
    "ro.product.locale": "en-US",
    "ro.product.manufacturer": b.manufacturer,
    "ro.product.model": b.model,
    "ro.product.name": b.name,
    "ro.product.system.brand": b.brand,
    "ro.product.system.model": b.model,
    "ro.product.vendor.device": b.device,
    "ro.product.vendor.model": b.model,
    "ro.revision": "0",
    "ro.secure": "1",
    "ro.serialno": b.serialno,
    "ro.sf.lcd_density": String(b.density),
    "ro.system.build.fingerprint": fp,
    "ro.vendor.build.fingerprint": fp,
    "ro.vendor.build.security_patch": b.securityPatch,
    "ro.zygote": "zygote64_32",
    "service.bootanim.exit": "1",
    "sys.boot_completed": "1",
    "sys.usb.config": "mtp,adb",
    "sys.usb.state": "mtp,adb",
    "vold.has_adoptable": "1",
  };
  if (!b.abiList.includes(",")) p["ro.zygote"] = "zygote64";
  if (!p["dalvik.vm.isa.arm64.variant"]) delete p["dalvik.vm.isa.arm64.variant"];
  return p;
}

const battery = (over: Partial<Battery>): Battery => ({
  acPowered: false,
  usbPowered: false,
  wirelessPowered: false,
  status: 3,
  health: 2,
  present: true,
  level: 85,
  scale: 100,
  voltage: 4012,
  temperature: 250,
  technology: "Li-ion",
  ...over,
});

const shellEnv = (storage: string): Record<string, string> => ({
  ANDROID_DATA: "/data",
  ANDROID_ROOT: "/system",
  ANDROID_STORAGE: "/storage",
  EXTERNAL_STORAGE: storage,
  HOME: "/",
  HOSTNAME: "localhost",
  IFS: " \t\n",
  LOGNAME: "shell",
  PATH: "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:" +
    "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
  PWD: "/",
  SHELL: "/system/bin/sh",
  TMPDIR: "/data/local/tmp",
  USER: "shell",
});

const files = (b: Build): Record<string, string> => ({
  "/proc/version":
    `Linux version 6.1.57-android14-11 (build-user@build-host) (Android (10087095, +pgo, +bolt, +lto, +mlgo, based on r487747c) clang version 17.0.2) #1 SMP PREEMPT ${
      new Date(b.utcSeconds * 1000).toUTCString()
    }\n`,
  "/system/build.prop": `# begin common build properties\nro.build.id=${b.buildId}\n` +
    `ro.build.version.sdk=${b.api}\nro.build.fingerprint=${fingerprint(b)}\n`,
  "/sdcard/Download/notes.txt": "keynobi simulator file\n",
  "/data/local/tmp/.keep": "",
});

export function emulatorSpec(): DeviceSpec {
  const b: Build = {
    brand: "google",
    manufacturer: "Google",
    model: "sdk_gphone64_x86_64",
    name: "sdk_gphone64_x86_64",
    device: "emu64xa",
    board: "goldfish_x86_64",
    hardware: "ranchu",
    platform: "",
    abi: "x86_64",
    abiList: "x86_64,arm64-v8a",
    api: 35,
    release: "15",
    buildId: "AE3A.240806.043",
    incremental: "12960925",
    type: "userdebug",
    tags: "dev-keys",
    securityPatch: "2024-08-05",
    utcSeconds: 1725915220,
    density: 420,
    serialno: "EMULATOR35X1X11X0",
  };
  const props = commonProps(b);
  delete props["ro.board.platform"];
  Object.assign(props, {
    "qemu.hw.mainkeys": "0",
    "ro.boot.qemu": "1",
    "ro.boot.qemu.avd_name": "Pixel_8_API_35",
    "ro.boot.qemu.gltransport.name": "pipe",
    "ro.kernel.qemu": "1",
    "ro.kernel.qemu.gles": "1",
    "ro.adb.secure": "0",
    "ro.product.cpu.abilist32": "",
    "ro.zygote": "zygote64",
    "gsm.operator.alpha": "T-Mobile",
    "gsm.sim.operator.alpha": "T-Mobile",
  });
  return {
    serial: "emulator-5554",
    kind: "emulator",
    api: 35,
    devpath: "",
    props,
    screen: { width: 1080, height: 2400, density: 420 },
    battery: battery({ acPowered: true, status: 2, level: 100, voltage: 5000 }),
    files: files(b),
    env: shellEnv("/sdcard"),
  };
}

export function samsungSpec(): DeviceSpec {
  const b: Build = {
    brand: "samsung",
    manufacturer: "samsung",
    model: "SM-S901B",
    name: "r0sxxx",
    device: "r0s",
    board: "s5e9925",
    hardware: "s5e9925",
    platform: "s5e9925",
    abi: "arm64-v8a",
    abiList: "arm64-v8a,armeabi-v7a,armeabi",
    api: 34,
    release: "14",
    buildId: "UP1A.231005.007",
    incremental: "S901BXXU8EXB1",
    type: "user",
    tags: "release-keys",
    securityPatch: "2024-02-01",
    utcSeconds: 1706240100,
    density: 420,
    serialno: "R5CT1234ABC",
  };
  const props = commonProps(b);
  Object.assign(props, {
    "ro.boot.bootloader": "S901BXXU8EXB1",
    "ro.csc.country_code": "EUR",
    "ro.csc.sales_code": "EUX",
    "ro.product.first_api_level": "31",
    "ro.build.PDA": "S901BXXU8EXB1",
    "ro.build.version.oneui": "60100",
    "persist.sys.sf.native_mode": "0",
  });
  return {
    serial: "R5CT1234ABC",
    kind: "usb",
    api: 34,
    devpath: "usb:1-4",
    props,
    screen: { width: 1080, height: 2340, density: 420 },
    battery: battery({ usbPowered: true, status: 2, level: 85, voltage: 4123, temperature: 287 }),
    files: files(b),
    env: shellEnv("/sdcard"),
  };
}

export function pixelWirelessSpec(): DeviceSpec {
  const b: Build = {
    brand: "google",
    manufacturer: "Google",
    model: "Pixel 7",
    name: "panther",
    device: "panther",
    board: "panther",
    hardware: "panther",
    platform: "gs201",
    abi: "arm64-v8a",
    abiList: "arm64-v8a,armeabi-v7a,armeabi",
    api: 33,
    release: "13",
    buildId: "TQ3A.230901.001",
    incremental: "10750268",
    type: "user",
    tags: "release-keys",
    securityPatch: "2023-09-05",
    utcSeconds: 1688681623,
    density: 420,
    serialno: "28031FDH2000AB",
  };
  const props = commonProps(b);
  Object.assign(props, {
    "ro.boot.hardware.platform": "gs201",
    "ro.soc.manufacturer": "Google",
    "ro.soc.model": "GS201",
    "service.adb.tls.port": "37521",
    "persist.adb.tls_server.enable": "1",
    "ro.product.first_api_level": "33",
  });
  return {
    serial: "192.168.1.23:5555",
    kind: "wireless",
    api: 33,
    devpath: "",
    props,
    screen: { width: 1080, height: 2400, density: 420 },
    battery: battery({ level: 62, status: 3, voltage: 3874, temperature: 312 }),
    files: files(b),
    env: shellEnv("/sdcard"),
  };
}

export function defaultFleet(): DeviceSpec[] {
  return [emulatorSpec(), samsungSpec(), pixelWirelessSpec()];
}
